@main struct BenchmarkMain { static func main() {} }
