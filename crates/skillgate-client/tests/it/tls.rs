//! HTTPS with the ring provider against a real TLS listener on 127.0.0.1 whose certificate
//! (for `localhost`) is issued by a test-only CA in `tests/fixtures/tls/`.

use std::sync::Arc;

use serde_json::json;
use skillgate_client::Outcome;
use skillgate_client::{Client, ClientConfig, ClientError, Step};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio_rustls::rustls::pki_types::pem::PemObject;
use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer};

const CA: &[u8] = include_bytes!("../fixtures/tls/ca.pem");
const LEAF: &[u8] = include_bytes!("../fixtures/tls/leaf.pem");
const LEAF_KEY: &[u8] = include_bytes!("../fixtures/tls/leaf.pkcs8.pem");

/// Serves one fixed Agent Card over HTTPS to every connection; returns the port.
async fn https_card_server() -> u16 {
    let provider = Arc::new(tokio_rustls::rustls::crypto::ring::default_provider());
    let certs = vec![CertificateDer::from_pem_slice(LEAF).unwrap()];
    let key = PrivateKeyDer::from_pem_slice(LEAF_KEY).unwrap();
    let config = tokio_rustls::rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(certs, key)
        .unwrap();
    let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(config));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let card = json!({
        "name": "tls agent", "description": "served over TLS", "version": "1.0.0",
        "supportedInterfaces": [{"url": format!("https://localhost:{port}/rpc"),
            "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
        "capabilities": {}, "defaultInputModes": ["application/json"],
        "defaultOutputModes": ["application/json"],
        "skills": [{"id": "describe_skill", "name": "d", "description": "d", "tags": ["meta"]}]
    })
    .to_string();
    tokio::spawn(async move {
        loop {
            let Ok((tcp, _)) = listener.accept().await else {
                return;
            };
            let acceptor = acceptor.clone();
            let card = card.clone();
            tokio::spawn(async move {
                let Ok(mut tls) = acceptor.accept(tcp).await else {
                    return;
                };
                let mut buf = Vec::new();
                let mut chunk = [0u8; 1024];
                while !buf.windows(4).any(|w| w == b"\r\n\r\n") {
                    match tls.read(&mut chunk).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => buf.extend_from_slice(&chunk[..n]),
                    }
                }
                let head = format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
                    card.len()
                );
                let _ = tls.write_all(head.as_bytes()).await;
                let _ = tls.write_all(card.as_bytes()).await;
                let _ = tls.shutdown().await;
            });
        }
    });
    port
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn https_card_fetch_with_a_private_ca() {
    let port = https_card_server().await;
    let url = format!("https://localhost:{port}");
    let config = ClientConfig {
        transport: skillgate_transport::TransportConfig {
            ca_certificates: vec![CA.to_vec()],
            ..Default::default()
        },
        ..ClientConfig::default()
    };
    let client = Client::new(config).unwrap();
    let target = client.fetch_target(&url, &mut |_, _| {}).await.unwrap();
    assert_eq!(target.card.name, "tls agent");
    assert_eq!(target.interface.url.scheme(), "https");
    // The card carries no extension: the gate stops at step 2 without sending anything.
    let e = client
        .resolve_target(target, "anything", &mut |_, _| {})
        .await
        .unwrap_err();
    assert_eq!(e.step(), Some(Step::SelectSkill));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn https_with_an_untrusted_certificate_is_a_transport_error() {
    let port = https_card_server().await;
    let client = Client::new(ClientConfig::default()).unwrap();
    let e = client
        .fetch_target(&format!("https://localhost:{port}"), &mut |_, _| {})
        .await
        .unwrap_err();
    assert!(
        matches!(
            e,
            ClientError::Transport {
                step: Step::FetchCard,
                ..
            }
        ),
        "{e:?}"
    );
    assert_eq!(e.outcome(), Outcome::Failure);
}

#[test]
fn a_ca_file_that_is_not_pem_is_a_usage_error() {
    let e = Client::new(ClientConfig {
        transport: skillgate_transport::TransportConfig {
            ca_certificates: vec![b"not a cert".to_vec()],
            ..Default::default()
        },
        ..ClientConfig::default()
    })
    .unwrap_err();
    assert!(matches!(e, ClientError::Usage { .. }), "{e:?}");
}
