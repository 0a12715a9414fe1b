//! What the client tolerates in a describe_skill answer: only what it needs must be right
//! (core's reader). The conformance checker judges the same answers more strictly.

use serde_json::json;
use skillgate_testkit::fake::{self, FakeAgent, SKILL};

use super::misbehaving::call;

#[tokio::test]
async fn an_artifact_beside_the_result_and_an_extra_member_do_not_stop_the_call() {
    let fake = FakeAgent::start();
    let doc = fake::document(SKILL, "1.0");
    let data = json!({
        "interface_digest": doc.interface_digest().to_string(),
        "skill_interface": doc.value(),
        "served_by": "test",
    });
    fake.state.lock().unwrap().describe_artifacts = Some(vec![
        json!({"artifactId": "a-log", "name": "log", "parts": [{"text": "describing"}]}),
        json!({"artifactId": "a-describe", "name": "describe_skill", "parts": [{"data": data}]}),
    ]);
    let r = call(&fake).await.unwrap();
    assert_eq!(r.interface_digest, doc.interface_digest());
    assert_eq!(fake.describe_calls(), 1);
}
