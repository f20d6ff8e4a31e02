/// The web page at `/`: plain HTML, CSS and JavaScript shipped inside booksd (no build step, no
/// CDN, works offline).
public enum WebPage {
    /// The page as a response.
    public static let response = HTTPResponse(
        status: 200,
        headers: [
            HTTPHeader("Content-Type", "text/html; charset=utf-8"),
            HTTPHeader(
                "Content-Security-Policy", "default-src 'self'; script-src 'unsafe-inline'; style-src 'unsafe-inline'"),
        ],
        body: Array(html.utf8))

    /// The page.
    public static let html = WebPageHTML.text
}
