// BooksClient placeholder; replaced by the real module.
