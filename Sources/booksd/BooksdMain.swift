@main struct BooksdMain { static func main() {} }
