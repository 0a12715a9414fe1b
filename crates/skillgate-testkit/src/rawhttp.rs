//! HTTP/1.1 by hand over a kept-alive TCP connection, for tests that must control the
//! connections a server sees: a probe that asks for `/metrics` on one connection of its own
//! adds exactly one to the server's open connections, however often it asks.

use std::io::{Read, Write};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// How long one response may take to arrive.
const RESPONSE_LIMIT: Duration = Duration::from_secs(10);

/// A keep-alive `GET path` request head for `host`.
pub fn get_request(host: &str, path: &str) -> String {
    format!("GET {path} HTTP/1.1\r\nHost: {host}\r\n\r\n")
}

/// The length of the whole first response in `buf` (head and `Content-Length` body) once it
/// has all arrived; `None` while it is incomplete. Fails the test on a complete head without
/// a `Content-Length`.
pub fn response_len(buf: &[u8]) -> Option<usize> {
    let head_end = buf.windows(4).position(|w| w == b"\r\n\r\n")? + 4;
    let head = String::from_utf8_lossy(&buf[..head_end]).to_ascii_lowercase();
    let len: usize = head
        .lines()
        .find_map(|l| l.strip_prefix("content-length:"))
        .unwrap_or_else(|| panic!("a response without Content-Length: {head}"))
        .trim()
        .parse()
        .unwrap();
    (buf.len() >= head_end + len).then_some(head_end + len)
}

/// Splits a complete response into its head and body text.
fn split(buf: &[u8]) -> (String, String) {
    let text = String::from_utf8_lossy(buf);
    let (head, body) = text.split_once("\r\n\r\n").unwrap();
    (head.to_owned(), body.to_owned())
}

/// Sends `GET path` on the blocking `conn` and reads the whole response (head, body); the
/// connection stays open for the next request. Fails the test if the server closes it or the
/// response takes longer than 10 s.
pub fn get(conn: &mut std::net::TcpStream, host: &str, path: &str) -> (String, String) {
    conn.set_read_timeout(Some(RESPONSE_LIMIT)).unwrap();
    conn.write_all(get_request(host, path).as_bytes()).unwrap();
    let mut buf = Vec::new();
    let mut chunk = [0u8; 8192];
    loop {
        if let Some(n) = response_len(&buf) {
            return split(&buf[..n]);
        }
        let n = conn.read(&mut chunk).unwrap();
        assert!(n > 0, "the server closed the connection mid-response");
        buf.extend_from_slice(&chunk[..n]);
    }
}

/// [`get`] on a tokio connection.
pub async fn get_async(
    conn: &mut tokio::net::TcpStream,
    host: &str,
    path: &str,
) -> (String, String) {
    conn.write_all(get_request(host, path).as_bytes())
        .await
        .unwrap();
    let mut buf = Vec::new();
    let mut chunk = [0u8; 8192];
    loop {
        if let Some(n) = response_len(&buf) {
            return split(&buf[..n]);
        }
        let n = tokio::time::timeout(RESPONSE_LIMIT, conn.read(&mut chunk))
            .await
            .expect("a response within 10 s")
            .unwrap();
        assert!(n > 0, "the server closed the connection mid-response");
        buf.extend_from_slice(&chunk[..n]);
    }
}

/// The value of one series of an OpenMetrics scrape (its name and labels exactly as printed,
/// e.g. `skillgate_open_connections`); `None` when the scrape does not have it.
pub fn metric(scrape: &str, series: &str) -> Option<f64> {
    scrape
        .lines()
        .find_map(|l| l.strip_prefix(series)?.strip_prefix(' '))
        .map(|v| v.trim().parse().unwrap())
}
