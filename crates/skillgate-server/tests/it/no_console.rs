//! A server built without the `console` feature (`cargo test -p skillgate-server
//! --no-default-features`): a browser's `GET /` gets the JSON-RPC endpoint's 405 like any
//! other client, and no console path exists.

use crate::common::*;

const HTML: &str = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";

#[tokio::test]
async fn without_the_console_no_page_is_served() {
    let s = start_server().await;
    let (status, headers, body) = s.get_raw("/", &[("Accept", HTML)]).await;
    assert_eq!(status, 405, "{body}");
    assert_eq!(headers["allow"], "POST");
    for path in ["/console/assets/console.css", "/console/skills/slow"] {
        let (status, _, body) = s.get_raw(path, &[("A2A-Version", "1.0")]).await;
        assert_eq!(status, 404, "{path}: {body}");
    }
    // The card is still public and the bindings answer.
    assert_eq!(s.card().await["name"], "test-agent");
    s.shutdown().await;
}
