//! The checker against the real netops agent on the real runtime (skillgate-server on
//! 127.0.0.1:0, the host's real interfaces): every required check must pass on both bindings.

use skillgate_conformance::{check, Binding, Options, Outcome, Verdict};
use skillgate_testkit::server::TestServer;

async fn serve_netops() -> TestServer {
    let agent = skillgate_netops::agent()
        .build()
        .expect("netops documents are valid");
    TestServer::start(agent, Default::default()).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn netops_agent_is_conformant_on_both_bindings() {
    let server = serve_netops().await;
    let base = &server.base;
    for binding in [Binding::JsonRpc, Binding::HttpJson] {
        let options = Options {
            binding: Some(binding),
            ..Default::default()
        };
        let r = check(base, &options).await.unwrap();
        assert_eq!(
            r.outcome(),
            Outcome::Conformant,
            "{binding:?}\n{}",
            r.to_text()
        );
        assert_eq!(r.binding.as_deref(), Some(binding.as_str()));
        // All three skills were described and called.
        for id in [
            "SI-DESC-002",
            "SI-MISMATCH-001",
            "SI-MISMATCH-002",
            "SI-INPUT-001",
        ] {
            let v: Vec<Verdict> = r.results(id).map(|c| c.verdict).collect();
            assert_eq!(
                v,
                vec![Verdict::Pass; 3],
                "{id} on {binding:?}\n{}",
                r.to_text()
            );
        }
        let calls: Vec<Verdict> = r.results("SI-CALL-001").map(|c| c.verdict).collect();
        assert_eq!(calls.len(), 3);
        // evaluate_resource_condition may refuse a generated condition on some hosts
        // (constraint_rejected -> skip); a failure is never acceptable.
        assert!(!calls.contains(&Verdict::Fail), "{}", r.to_text());
        assert!(calls.contains(&Verdict::Pass), "{}", r.to_text());
    }
}
