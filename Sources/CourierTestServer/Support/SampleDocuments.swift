/// Fixed documents served by `/json`, `/xml`, `/html` and `/encoding/utf8`.
///
/// `/json` and `/xml` keep httpbin's "slideshow" shape so the same assertions work against both servers.
enum SampleDocuments {
    static let slideshowJSON: JSONValue = [
        "slideshow": [
            "author": "Yours Truly",
            "date": "date of publication",
            "title": "Sample Slide Show",
            "slides": [
                ["title": "Wake up to WonderWidgets!", "type": "all"],
                [
                    "title": "Overview",
                    "type": "all",
                    "items": ["Why <em>WonderWidgets</em> are great", "Who <em>buys</em> WonderWidgets"],
                ],
            ],
        ]
    ]

    static let slideshowXML = """
        <?xml version='1.0' encoding='us-ascii'?>
        <slideshow title="Sample Slide Show" date="Date of publication" author="Yours Truly">
            <slide type="all">
                <title>Wake up to WonderWidgets!</title>
            </slide>
            <slide type="all">
                <title>Overview</title>
                <item>Why <em>WonderWidgets</em> are great</item>
                <item>Who <em>buys</em> WonderWidgets</item>
            </slide>
        </slideshow>

        """

    static let html = """
        <!DOCTYPE html>
        <html>
          <head><meta charset="utf-8"><title>Courier test page</title></head>
          <body>
            <h1>Courier</h1>
            <p>A courier carries a parcel from one door to another and asks for a signature on arrival.
            This page is served by CourierTestServer so that HTML response serializers have something to read.</p>
          </body>
        </html>

        """

    static let utf8Sample = """
        <!DOCTYPE html>
        <html><head><meta charset="utf-8"><title>UTF-8</title></head><body>
        <p>Ελληνικά · Русский · 日本語 · العربية · עברית · हिन्दी · 한국어 · emoji 📦🚚✅</p>
        </body></html>

        """
}
