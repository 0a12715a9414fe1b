//! The card family: fetching the Agent Card and choosing the interface to probe.

use skillgate_a2a as a2a;
use url::Url;

use super::Run;
use crate::catalogue as cat;
use crate::probe::Binding;
use crate::report::{Fatal, Verdict};

/// SI-CARD-001: fetches and strictly parses the Agent Card; sets the fatal outcome on failure.
pub(crate) async fn fetch_card(run: &mut Run, url: &Url) -> Option<a2a::AgentCard> {
    let mut ev = vec![format!(
        "GET {url} with A2A-Version: {}",
        a2a::PROTOCOL_VERSION
    )];
    let fetched = match run.prober.get_card(url).await {
        Ok(f) => f,
        Err(e) => {
            // A card refused for its signature was answered, but must not be believed: the
            // run stops there, before any probe reaches the agent.
            let fatal = match e {
                skillgate_transport::TransportError::Untrusted { .. } => Fatal::Untrusted,
                _ => Fatal::Unreachable,
            };
            ev.push(format!("no answer: {e}"));
            run.push(cat::CARD_FETCH, None, Verdict::Fail, ev);
            run.report.fatal = Some(fatal);
            return None;
        }
    };
    ev.push(format!(
        "HTTP {} {} ({} bytes)",
        fetched.status,
        fetched.content_type,
        fetched.bytes.len()
    ));
    let fail = |run: &mut Run, mut ev: Vec<String>, why: String| {
        ev.push(why);
        run.push(cat::CARD_FETCH, None, Verdict::Fail, ev);
        run.report.fatal = Some(Fatal::NotA2aAgent);
        None
    };
    if fetched.status != 200 {
        return fail(run, ev, "expected HTTP 200".into());
    }
    let v = match run.prober.parse(&fetched.bytes) {
        Ok(v) => v,
        Err(e) => return fail(run, ev, format!("not strict JSON: {e}")),
    };
    // Either version is read (a 0.3 card into the 1.0 model with 0.3 interfaces), so a
    // 0.3-only agent is told apart from something that is no A2A agent at all.
    let card = match a2a::v03::card::read(&v) {
        Ok((c, form)) => {
            if form == a2a::v03::card::CardForm::V0_3 {
                ev.push("an A2A 0.3 card (url, no supportedInterfaces)".into());
            }
            c
        }
        Err(e) => return fail(run, ev, format!("not an A2A AgentCard: {e}")),
    };
    if card.supported_interfaces.is_empty() {
        return fail(
            run,
            ev,
            "supportedInterfaces is empty or missing (an A2A 0.3 card?)".into(),
        );
    }
    ev.push(format!(
        "card {:?} version {:?}: {} interface(s), {} skill(s), {} extension(s)",
        card.name,
        card.version,
        card.supported_interfaces.len(),
        card.skills.len(),
        card.capabilities.extensions.len()
    ));
    run.push(cat::CARD_FETCH, None, Verdict::Pass, ev);
    Some(card)
}

/// SI-CARD-002: the first usable interface (or the forced binding) at protocol version 1.0.
pub(crate) fn choose_interface(
    run: &mut Run,
    card: &a2a::AgentCard,
    forced: Option<Binding>,
) -> Option<(Binding, Url)> {
    let mut ev = Vec::new();
    for i in &card.supported_interfaces {
        ev.push(format!(
            "interface {} {} protocolVersion {:?}",
            i.protocol_binding, i.url, i.protocol_version
        ));
    }
    let wanted: Vec<Binding> = match forced {
        Some(b) => vec![b],
        None => vec![Binding::JsonRpc, Binding::HttpJson],
    };
    for b in wanted {
        let found = card.supported_interfaces.iter().find(|i| {
            i.protocol_binding == b.as_str() && i.protocol_version == a2a::PROTOCOL_VERSION
        });
        if let Some(i) = found {
            match b.parse_url(&i.url) {
                Ok(u) => {
                    match crate::probe::check_scheme(&u, run.prober.config().transport.allow_http) {
                        Ok(()) => {
                            ev.push(format!("probing {} at {u}", b.as_str()));
                            run.report.binding = Some(b.as_str().to_owned());
                            run.report.interface_url = Some(u.to_string());
                            run.push(cat::CARD_INTERFACE, None, Verdict::Pass, ev);
                            return Some((b, u));
                        }
                        Err(e) => ev.push(format!("{} interface refused: {e}", b.as_str())),
                    }
                }
                Err(e) => ev.push(format!(
                    "{} interface URL {:?} is not absolute: {e}",
                    b.as_str(),
                    i.url
                )),
            }
        }
    }
    ev.push(match forced {
        Some(b) => format!(
            "no usable {} interface with protocolVersion 1.0",
            b.as_str()
        ),
        None => "no usable JSONRPC or HTTP+JSON interface with protocolVersion 1.0".into(),
    });
    run.push(cat::CARD_INTERFACE, None, Verdict::Fail, ev);
    None
}

/// Whether the card's only A2A interfaces are 0.3 ones: the run then stops with
/// [`crate::report::Fatal::NeedsA2a1x`] rather than calling the agent no A2A agent.
pub(crate) fn only_v03(card: &a2a::AgentCard) -> bool {
    let v1 = |i: &a2a::AgentInterface| {
        a2a::version::WireVersion::parse(&i.protocol_version)
            == Some(a2a::version::WireVersion::V1_0)
    };
    card.supported_interfaces
        .iter()
        .any(a2a::v03::card::is_v03_interface)
        && !card.supported_interfaces.iter().any(v1)
}
