//! The card family: fetching the Agent Card and choosing the interface to probe.

use skillgate_a2a as a2a;
use skillgate_a2a::version::WireVersion;
use skillgate_transport::{Interface, VersionChoice};
use url::Url;

use super::Run;
use crate::catalogue as cat;
use crate::probe::Binding;
use crate::report::{Fatal, Verdict};

/// SI-CARD-001: fetches and strictly parses the Agent Card; sets the fatal outcome on failure.
pub(crate) async fn fetch_card(run: &mut Run, url: &Url) -> Option<a2a::AgentCard> {
    // The transport asks for the 0.3 card only when the run is narrowed to 0.3.
    let asked = match run.prober.config().transport.a2a_version {
        VersionChoice::Only(WireVersion::V0_3) => WireVersion::V0_3.as_str(),
        _ => a2a::PROTOCOL_VERSION,
    };
    let mut ev = vec![format!("GET {url} with A2A-Version: {asked}")];
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

/// SI-CARD-002: the interface to probe. First, unless the run is narrowed to 0.3: the first
/// usable JSON-RPC, then HTTP+JSON, interface (or the forced binding) at protocol version 1.0.
/// Then, unless narrowed to 1.0, when no 1.x interface was usable: the agent's 0.3 interface as
/// the client chooses it (`Interface::select_version`: one selection rule for both), probed
/// through the transport's 0.3 layer (D291).
pub(crate) fn choose_interface(
    run: &mut Run,
    card: &a2a::AgentCard,
    forced: Option<Binding>,
) -> Option<(Binding, Url, WireVersion)> {
    let mut ev = Vec::new();
    for i in &card.supported_interfaces {
        ev.push(format!(
            "interface {} {} protocolVersion {:?}",
            i.protocol_binding, i.url, i.protocol_version
        ));
    }
    let choice = run.prober.config().transport.a2a_version;
    let allow_http = run.prober.config().transport.allow_http;
    if choice.allows(WireVersion::V1_0) {
        if let Some((b, u)) = first_v1(card, forced, allow_http, &mut ev) {
            return Some(chosen(run, ev, b, u, WireVersion::V1_0));
        }
    }
    // A card with 1.x interfaces is judged over 1.x unless the run is narrowed to 0.3: a
    // broken 1.x interface is a finding, not a reason to fall back.
    if choice == VersionChoice::Only(WireVersion::V0_3)
        || (choice.allows(WireVersion::V0_3) && only_v03(card))
    {
        match Interface::select_version(
            card,
            forced,
            VersionChoice::Only(WireVersion::V0_3),
            allow_http,
        ) {
            Ok(i) => return Some(chosen(run, ev, i.binding, i.url, WireVersion::V0_3)),
            Err(e) => ev.push(format!("A2A 0.3: {e}")),
        }
    }
    let versions = match choice {
        VersionChoice::Auto => "protocolVersion 1.0 (or, on a 0.3-only agent, 0.3)".to_owned(),
        VersionChoice::Only(v) => format!("protocolVersion {}", v.as_str()),
    };
    ev.push(match forced {
        Some(b) => format!("no usable {} interface with {versions}", b.as_str()),
        None => format!("no usable JSONRPC or HTTP+JSON interface with {versions}"),
    });
    run.push(cat::CARD_INTERFACE, None, Verdict::Fail, ev);
    None
}

/// Records the chosen interface in the report and passes SI-CARD-002.
fn chosen(
    run: &mut Run,
    mut ev: Vec<String>,
    binding: Binding,
    url: Url,
    version: WireVersion,
) -> (Binding, Url, WireVersion) {
    ev.push(format!(
        "probing {} at {url} over A2A {}",
        binding.as_str(),
        version.as_str()
    ));
    if version == WireVersion::V0_3 {
        run.report.notes.push(V03_NOTE.to_owned());
    }
    run.report.binding = Some(binding.as_str().to_owned());
    run.report.interface_url = Some(url.to_string());
    run.report.a2a_version = Some(version.as_str().to_owned());
    run.push(cat::CARD_INTERFACE, None, Verdict::Pass, ev);
    (binding, url, version)
}

/// What a report over A2A 0.3 says about how it was judged.
const V03_NOTE: &str = "probed over A2A 0.3: every answer was read by skillgate's 0.3 layer \
     (strictly: an answer it cannot read counts as malformed) and judged by the same draft \
     checks as over 1.0; the extension echo was read from X-A2A-Extensions";

/// The first pass of [`choose_interface`]: JSON-RPC, then HTTP+JSON (or only `forced`) at
/// protocol version 1.0, its URL parsed and allowed by the scheme policy.
fn first_v1(
    card: &a2a::AgentCard,
    forced: Option<Binding>,
    allow_http: bool,
    ev: &mut Vec<String>,
) -> Option<(Binding, Url)> {
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
                Ok(u) => match crate::probe::check_scheme(&u, allow_http) {
                    Ok(()) => return Some((b, u)),
                    Err(e) => ev.push(format!("{} interface refused: {e}", b.as_str())),
                },
                Err(e) => ev.push(format!(
                    "{} interface URL {:?} is not absolute: {e}",
                    b.as_str(),
                    i.url
                )),
            }
        }
    }
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
