//! The launcher's checks, called as an embedder calls them: what the Agent Card would
//! advertise is refused with a typed error before anything is served.

use crate::common::*;
use skillgate_runtime::{PublicUrlProblem, ServerConfig, TokenTable};
use skillgate_server::{Launch, LaunchError, Listener};
use tokio::net::TcpListener;

async fn bind(addr: &str) -> TcpListener {
    TcpListener::bind(addr).await.unwrap()
}

#[tokio::test]
async fn every_interface_without_a_public_url_is_refused() {
    let l = bind("0.0.0.0:0").await;
    let bound = l.local_addr().unwrap();
    let e = Launch::new(agent(), l, ServerConfig::default())
        .err()
        .expect("launched on 0.0.0.0 without a public URL");
    match e {
        LaunchError::EveryInterface { listener, addr } => {
            assert_eq!(listener, Listener::Http);
            assert_eq!(addr, bound);
        }
        other => panic!("{other}"),
    }
    // With one, the card advertises it.
    let config = ServerConfig {
        public_url: Some("https://agent.example.net/a2a".into()),
        ..Default::default()
    };
    let launch = Launch::new(agent(), bind("0.0.0.0:0").await, config).unwrap();
    assert_eq!(launch.base_url(), "https://agent.example.net/a2a");
}

#[tokio::test]
async fn a_public_url_that_is_no_url_to_advertise_is_refused() {
    let config = ServerConfig {
        public_url: Some("/a2a".into()),
        ..Default::default()
    };
    match Launch::new(agent(), bind("127.0.0.1:0").await, config) {
        Err(LaunchError::PublicUrl(e)) => assert_eq!(e.problem, PublicUrlProblem::NotAbsolute),
        Err(other) => panic!("{other}"),
        Ok(_) => panic!("launched with a relative public URL"),
    }
}

#[tokio::test]
async fn a_token_line_naming_a_skill_the_agent_lacks_is_refused() {
    let config = ServerConfig {
        tokens: Some(TokenTable::parse("limited-secret-0123456789 no_such_skill\n").unwrap()),
        ..Default::default()
    };
    match Launch::new(agent(), bind("127.0.0.1:0").await, config) {
        Err(LaunchError::Tokens(e)) => assert!(e.to_string().contains("no_such_skill"), "{e}"),
        Err(other) => panic!("{other}"),
        Ok(_) => panic!("launched with a token for a skill it does not serve"),
    }
}

#[tokio::test]
async fn the_base_url_is_the_bound_address_by_default() {
    let launch = Launch::new(agent(), bind("127.0.0.1:0").await, ServerConfig::default()).unwrap();
    assert_eq!(launch.base_url(), format!("http://{}", launch.http_addr()));
    assert_eq!(launch.grpc_url(), None);
}

#[cfg(feature = "grpc")]
#[tokio::test]
async fn grpc_on_every_interface_takes_the_public_urls_host_or_is_refused() {
    let l = bind("0.0.0.0:0").await;
    let bound = l.local_addr().unwrap();
    let launch = Launch::new(agent(), bind("127.0.0.1:0").await, ServerConfig::default()).unwrap();
    match launch.with_grpc(l) {
        Err(LaunchError::EveryInterface { listener, addr }) => {
            assert_eq!(listener, Listener::Grpc);
            assert_eq!(addr, bound);
        }
        Err(other) => panic!("{other}"),
        Ok(_) => panic!("gRPC on 0.0.0.0 without a public URL"),
    }
    let config = ServerConfig {
        public_url: Some("https://agent.example.net/a2a".into()),
        ..Default::default()
    };
    let l = bind("0.0.0.0:0").await;
    let port = l.local_addr().unwrap().port();
    let launch = Launch::new(agent(), bind("127.0.0.1:0").await, config)
        .unwrap()
        .with_grpc(l)
        .unwrap();
    assert_eq!(
        launch.grpc_url(),
        Some(format!("agent.example.net:{port}").as_str())
    );
    // A listener on one address is advertised as bound.
    let l = bind("127.0.0.1:0").await;
    let addr = l.local_addr().unwrap();
    let launch = Launch::new(agent(), bind("127.0.0.1:0").await, ServerConfig::default())
        .unwrap()
        .with_grpc(l)
        .unwrap();
    assert_eq!(launch.grpc_url(), Some(addr.to_string().as_str()));
}

/// One shutdown stops every binding, and the launch returns.
#[tokio::test]
async fn one_shutdown_stops_the_server() {
    let launch = Launch::new(agent(), bind("127.0.0.1:0").await, ServerConfig::default()).unwrap();
    let base = launch.base_url().to_owned();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let (swap_tx, swap_rx) = tokio::sync::oneshot::channel();
    let task = tokio::spawn(launch.serve(
        async {
            let _ = stopped.await;
        },
        move |swap| {
            let _ = swap_tx.send(swap);
        },
    ));
    let swap = swap_rx.await.unwrap();
    assert_eq!(swap.base_url(), base);
    let card = skillgate_testkit::server::http_client()
        .get(format!("{base}/.well-known/agent-card.json"))
        .send()
        .await
        .unwrap();
    assert_eq!(card.status(), 200);
    stop.send(()).unwrap();
    tokio::time::timeout(std::time::Duration::from_secs(15), task)
        .await
        .expect("still serving after shutdown")
        .unwrap()
        .unwrap();
}
