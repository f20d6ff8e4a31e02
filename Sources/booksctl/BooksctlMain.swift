@main struct BooksctlMain { static func main() {} }
