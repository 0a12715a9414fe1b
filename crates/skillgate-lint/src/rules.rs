//! The rule catalogue: every rule id the linter can report, with its fixed severity.
//!
//! Ids are stable: a rule may be retired, never renumbered, so that suppressions and CI
//! baselines keep meaning the same thing. `docs/lint-rules.md` is rendered from this table and a
//! test keeps the two identical.

use serde::Serialize;

/// How bad a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// The card is not valid for the profile; exit code 1.
    Error,
    /// Valid, but likely to hurt interoperability or discovery.
    Warning,
    /// Worth knowing (migration notes, unknown members); never fails a build.
    Info,
}

impl Severity {
    /// The lowercase name used in every output format.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "info",
        }
    }
}

/// One entry of the catalogue.
#[derive(Debug)]
pub struct Rule {
    /// Stable id, e.g. `A2A-REQ-001`.
    pub id: &'static str,
    /// Severity of every finding of this rule.
    pub severity: Severity,
    /// Profiles the rule runs in (`all` or a list of profile names).
    pub profiles: &'static str,
    /// What the rule checks, one line.
    pub what: &'static str,
    /// Why it matters.
    pub why: &'static str,
    /// How to fix it (the default hint of a finding).
    pub fix: &'static str,
}

macro_rules! rules {
    ($( $konst:ident = $id:literal, $sev:ident, $profiles:literal, $what:literal, $why:literal, $fix:literal; )*) => {
        $(
            #[doc = concat!("`", $id, "`: ", $what)]
            pub static $konst: Rule = Rule {
                id: $id,
                severity: Severity::$sev,
                profiles: $profiles,
                what: $what,
                why: $why,
                fix: $fix,
            };
        )*
        /// Every rule, in catalogue order.
        pub static ALL: &[&Rule] = &[$( &$konst ),*];
    };
}

rules! {
    CARD_001 = "CARD-001", Error, "all",
        "A member name appears twice in one object, anywhere in the card.",
        "RFC 8259 leaves the result undefined and RFC 7493 (I-JSON) forbids it: some parsers keep the first value, others the last, so two consumers read two different cards.",
        "Remove one of the two members; the linter checked the last value, as serde_json and JavaScript do.";
    CARD_002 = "CARD-002", Error, "all",
        "The card nests arrays and objects deeper than the linter's limit (100 levels).",
        "No real Agent Card is that deep; such input exists to exhaust recursive parsers. The card is not linted further.",
        "Flatten the card; nothing in an Agent Card needs more than a few levels.";
    CARD_003 = "CARD-003", Warning, "all",
        "The card is larger than 10 KB.",
        "Cards are fetched by catalogues and clients on every discovery; long prose belongs at documentationUrl, not in the card.",
        "Move long text to the documentation URL and keep descriptions short.";
    CARD_004 = "CARD-004", Warning, "all",
        "A description is longer than 10 KB.",
        "A runbook pasted into a description hits catalogue size limits first and drowns the scope statement orchestrators route on.",
        "Say what the agent or skill does and does not do in a paragraph; link the rest.";
    CARD_005 = "CARD-005", Error, "all",
        "The card is not a JSON object.",
        "Every profile defines the card as an object.",
        "Publish a JSON object at the top level.";
    CARD_006 = "CARD-006", Info, "all",
        "The profile could not be detected; the card was linted as A2A 1.0.",
        "Auto-detection looks for schemaVersion + humanReadableId (AgentVault), supportedInterfaces (A2A 1.0) or url + protocolVersion (A2A 0.3).",
        "Add the members of the profile you mean, or pass --profile.";

    A2A_REQ_001 = "A2A-REQ-001", Error, "a2a-1.0",
        "A member the A2A 1.0 proto marks REQUIRED is missing (card, interface or skill).",
        "A 1.0 client must not treat a card without it as a legal Agent Card.",
        "Add the member.";
    A2A_REQ_002 = "A2A-REQ-002", Error, "a2a-1.0",
        "A required member is empty (empty string or empty array).",
        "A2A 1.0 section 5.7: arrays marked required must contain at least one element; an empty name or tag list makes the agent undiscoverable.",
        "Give the member a real value.";
    A2A_REQ_003 = "A2A-REQ-003", Error, "a2a-1.0, a2a-0.3",
        "A known member has the wrong JSON type.",
        "ProtoJSON parsers reject the whole card when a field has the wrong type.",
        "Use the type the proto defines (see the message).";
    A2A_NAME_001 = "A2A-NAME-001", Warning, "a2a-1.0",
        "A member uses the proto's snake_case name instead of the JSON camelCase name.",
        "ProtoJSON parsers accept both, but emitters and most hand-written clients use camelCase only.",
        "Rename the member to its camelCase JSON name.";
    A2A_UNK_001 = "A2A-UNK-001", Info, "a2a-1.0",
        "A member that A2A 1.0 does not define.",
        "Clients ignore unknown members, so a typo silently drops data.",
        "Check the spelling; move private data into an extension's params.";
    A2A_IF_001 = "A2A-IF-001", Error, "a2a-1.0",
        "An interface's protocolVersion is not Major.Minor (e.g. \"1.0\").",
        "A2A versions are Major.Minor with no patch; clients compare them with the A2A-Version header.",
        "Write \"1.0\".";
    A2A_IF_002 = "A2A-IF-002", Warning, "a2a-1.0, a2a-0.3",
        "A protocol binding (or 0.3 transport) is neither a core binding (JSONRPC, GRPC, HTTP+JSON) nor a URI.",
        "A2A 1.0.1 section 5.8: custom bindings should be identified by a URI so that they cannot collide.",
        "Use JSONRPC, GRPC or HTTP+JSON exactly (case matters), or a URI for a custom binding.";
    A2A_IF_003 = "A2A-IF-003", Warning, "a2a-1.0",
        "Every interface repeats the same URL for different bindings.",
        "Clients take the first binding they speak; listing every binding on one URL to look complete points them all at the same endpoint, which usually speaks one.",
        "List only the bindings the URL really serves, each at its own URL if they differ.";
    A2A_IF_004 = "A2A-IF-004", Warning, "a2a-1.0",
        "Two interfaces are identical (same url, binding, protocol version and tenant).",
        "Duplicates add nothing and usually hide a copy-paste mistake.",
        "Remove the duplicate entry.";
    A2A_URL_001 = "A2A-URL-001", Error, "a2a-1.0, a2a-0.3",
        "A URL member is not an absolute URL.",
        "Clients resolve nothing relative to where the card was fetched from; a relative or malformed URL is unreachable.",
        "Write an absolute URL with scheme and host, e.g. https://agent.example.com/a2a.";
    A2A_URL_002 = "A2A-URL-002", Error, "a2a-1.0, a2a-0.3",
        "An endpoint URL (interface, OAuth or OpenID Connect URL) is not HTTPS and its host is not loopback.",
        "A2A requires TLS in production; plain http is acceptable only on localhost, 127.0.0.0/8 or ::1 (decided from the parsed host, so http://127.0.0.1.evil.com is not loopback).",
        "Serve the endpoint over https.";
    A2A_URL_003 = "A2A-URL-003", Warning, "a2a-1.0, a2a-0.3",
        "A URL carries credentials (user:password@host).",
        "The card is public: whoever fetches it gets the credentials (the linter's output redacts the password).",
        "Remove the userinfo and declare authentication in securitySchemes.";
    A2A_MEDIA_001 = "A2A-MEDIA-001", Error, "a2a-1.0, a2a-0.3",
        "An input or output mode is not a media type of the form type/subtype.",
        "Modes are media types; file extensions (\"json\", \".pdf\") or private enums (\"text\") match nothing a client offers.",
        "Use a media type such as text/plain or application/json.";
    A2A_SKILL_001 = "A2A-SKILL-001", Error, "a2a-1.0, a2a-0.3",
        "A skill id contains whitespace.",
        "The id is a programmatic key used in requests and extension params; spaces break tooling and are easily confused with the human name.",
        "Use a short stable key such as classify-return.";
    A2A_SKILL_002 = "A2A-SKILL-002", Error, "a2a-1.0, a2a-0.3",
        "Two skills share one id.",
        "A request names a skill by id; with two candidates the agent's choice is arbitrary.",
        "Give every skill its own id.";
    A2A_SKILL_003 = "A2A-SKILL-003", Warning, "a2a-1.0",
        "A skill tag is an empty string.",
        "Empty tags are indexed as nothing.",
        "Remove the empty tag or give it a word.";
    A2A_PROVIDER_001 = "A2A-PROVIDER-001", Error, "a2a-1.0",
        "provider is present but lacks organization or url.",
        "The proto marks both members of AgentProvider REQUIRED: the provider is a pair.",
        "Give both organization and url, or drop provider.";
    A2A_EXT_001 = "A2A-EXT-001", Error, "a2a-1.0",
        "An extension declaration has no uri.",
        "The uri is the extension's identity; clients activate extensions by uri.",
        "Add the extension's uri.";
    A2A_EXT_002 = "A2A-EXT-002", Warning, "a2a-1.0",
        "An extension uri is not an absolute URI.",
        "Extension identifiers are URIs so that independent authors cannot collide.",
        "Use an absolute URI, ideally with a version in its path.";
    A2A_EXT_003 = "A2A-EXT-003", Warning, "a2a-1.0",
        "The same extension uri is declared twice.",
        "Clients read one declaration; which one is undefined.",
        "Merge the declarations.";
    A2A_SEC_001 = "A2A-SEC-001", Error, "a2a-1.0",
        "A securitySchemes entry is not exactly one of the 1.0 scheme kinds.",
        "SecurityScheme is a oneof: apiKeySecurityScheme, httpAuthSecurityScheme, oauth2SecurityScheme, openIdConnectSecurityScheme or mtlsSecurityScheme.",
        "Wrap the scheme in exactly one of those members.";
    A2A_SEC_002 = "A2A-SEC-002", Error, "a2a-1.0",
        "A security requirement names a scheme that securitySchemes does not define.",
        "Clients cannot satisfy a requirement on an undeclared scheme.",
        "Declare the scheme in securitySchemes or fix the name.";
    A2A_SEC_003 = "A2A-SEC-003", Error, "a2a-1.0",
        "A securityRequirements entry is not of the 1.0 shape {\"schemes\": {NAME: {\"list\": [SCOPES]}}}.",
        "The 0.3 shape {NAME: [SCOPES]} does not parse as a 1.0 SecurityRequirement.",
        "Write {\"schemes\": {\"NAME\": {\"list\": []}}}.";
    A2A_SEC_004 = "A2A-SEC-004", Error, "a2a-1.0",
        "A security scheme lacks a member the proto marks REQUIRED (apiKey location/name, http scheme, oauth2 flows with exactly one flow and its URLs and scopes, openIdConnectUrl).",
        "Clients cannot authenticate with an incomplete scheme.",
        "Add the member named in the message.";
    A2A_SEC_005 = "A2A-SEC-005", Warning, "a2a-1.0",
        "A security scheme uses a deprecated OAuth flow (implicit, password) or an API key location other than header, query or cookie.",
        "A2A 1.0 deprecates those flows (OAuth 2.0 Security BCP); clients know only the three key locations.",
        "Use the authorizationCode (with PKCE), clientCredentials or deviceCode flow; put API keys in a header.";
    A2A_SIG_001 = "A2A-SIG-001", Error, "a2a-1.0",
        "A signature lacks its protected header or signature value.",
        "AgentCardSignature.protected and .signature are REQUIRED; without them the JWS cannot be verified.",
        "Emit both members as base64url strings, or drop the signature.";
    CARD_SIGN_001 = "CARD-SIGN-001", Error, "a2a-1.0",
        "A signature's protected header is not base64url of a JSON object with `alg` and `kid`.",
        "A2A 1.0 section 8.4.2: the protected header MUST name the algorithm and the key; a verifier cannot even pick a key without them.",
        "Encode the header {\"alg\", \"kid\", \"typ\": \"JOSE\"} as unpadded base64url (skillgate card sign does).";
    CARD_SIGN_002 = "CARD-SIGN-002", Error, "a2a-1.0",
        "A signature declares `alg: none`.",
        "An unsecured JWS (RFC 7515 appendix A.5) proves nothing; accepting it is the classic JOSE downgrade.",
        "Sign with a real key (ES256, RS256, EdDSA, ...), or drop the signature.";
    CARD_SIGN_003 = "CARD-SIGN-003", Error, "a2a-1.0",
        "A signature uses an algorithm that is not an asymmetric JWS algorithm (HS256, an unknown name).",
        "A card is verified by whoever reads it: an HMAC key would have to be shared with every reader, each of whom could then forge the card.",
        "Use ES256, ES384, RS256/384/512, PS256/384/512 or EdDSA.";
    CARD_SIGN_004 = "CARD-SIGN-004", Error, "a2a-1.0",
        "A signature does not verify with the trusted key its `kid` names (checked with `card lint --jwks`).",
        "The signature was made over a different canonical form (the card changed after signing, or the signer canonicalized differently): a verifying client refuses the card.",
        "Re-sign the card as served (skillgate card sign), after the last change.";

    A2A_LEGACY_001 = "A2A-LEGACY-001", Error, "a2a-1.0",
        "Top-level url (the 0.3 endpoint) in a 1.0 card.",
        "1.0 clients ignore it and read supportedInterfaces; registering with the URL at the top means the primary endpoint is ignored.",
        "Move it to supportedInterfaces[0].url with protocolBinding and protocolVersion, then delete it.";
    A2A_LEGACY_002 = "A2A-LEGACY-002", Error, "a2a-1.0",
        "Top-level protocolVersion in a 1.0 card.",
        "In 1.0 the protocol version travels with each interface.",
        "Set supportedInterfaces[].protocolVersion to \"1.0\" and delete the top-level member.";
    A2A_LEGACY_003 = "A2A-LEGACY-003", Error, "a2a-1.0",
        "Top-level preferredTransport in a 1.0 card.",
        "1.0 has no preferred transport: the first entry of supportedInterfaces is preferred.",
        "Put the preferred interface first in supportedInterfaces and delete preferredTransport.";
    A2A_LEGACY_004 = "A2A-LEGACY-004", Error, "a2a-1.0",
        "additionalInterfaces in a 1.0 card.",
        "1.0 lists every interface in supportedInterfaces.",
        "Move each entry to supportedInterfaces as {url, protocolBinding: TRANSPORT, protocolVersion: \"1.0\"}.";
    A2A_LEGACY_005 = "A2A-LEGACY-005", Error, "a2a-1.0",
        "supportsAuthenticatedExtendedCard in a 1.0 card.",
        "1.0 moved the flag into capabilities.",
        "Use capabilities.extendedAgentCard instead.";
    A2A_LEGACY_006 = "A2A-LEGACY-006", Error, "a2a-1.0",
        "capabilities.stateTransitionHistory in a 1.0 card.",
        "The capability was removed in 1.0; advertising it promises behaviour no 1.0 client asks for.",
        "Delete it.";
    A2A_LEGACY_007 = "A2A-LEGACY-007", Error, "a2a-1.0",
        "security (0.3 requirement list) on the card or a skill.",
        "1.0 renamed it securityRequirements and changed its shape; 1.0 parsers ignore security, so the agent looks unauthenticated.",
        "Write securityRequirements: [{\"schemes\": {\"NAME\": {\"list\": [SCOPES]}}}].";
    A2A_LEGACY_008 = "A2A-LEGACY-008", Error, "a2a-1.0",
        "A skill carries inputSchema, input_schema, outputSchema or output_schema.",
        "A 1.0 skill has no schema field; clients ignore it, so it is not a contract. A skill contract belongs in the schema-interface extension.",
        "Remove it and advertise the skill through the schema-interface extension (capabilities.extensions, describe_skill).";
    A2A_LEGACY_009 = "A2A-LEGACY-009", Error, "a2a-1.0",
        "A securitySchemes entry uses the 0.3 shape ({\"type\": ...}).",
        "1.0 SecurityScheme is a oneof keyed by member name; the 0.3 shape does not parse.",
        "Rewrite as {\"apiKeySecurityScheme\": {\"location\": ..., \"name\": ...}} (or the http, oauth2, openIdConnect or mtls form).";
    A2A_LEGACY_010 = "A2A-LEGACY-010", Error, "a2a-1.0",
        "An interface uses the 0.3 member transport.",
        "1.0 calls it protocolBinding; a 1.0 parser sees an interface without binding.",
        "Rename transport to protocolBinding and add protocolVersion.";
    A2A_HYBRID_001 = "A2A-HYBRID-001", Warning, "a2a-1.0",
        "A dual-version card: the 1.0 members and the 0.3 top-level members (url, preferredTransport, protocolVersion 0.3, additionalInterfaces, supportsAuthenticatedExtendedCard) agree, every 0.3 endpoint also listed in supportedInterfaces with protocolVersion 0.3.",
        "Such a card serves 0.3 readers (which send no A2A-Version) and 1.x readers from one document; it is a deliberate rendering, so its 0.3 members are not A2A-LEGACY errors. Strict 1.0 validators (the A2A TCK) still refuse the extra members.",
        "Serve 1.x readers the plain 1.0 card, chosen by A2A-Version with Vary (skillgate serve does), and lint that rendering (card lint URL sends A2A-Version: 1.0).";

    A2A03_SCHEMA_001 = "A2A03-SCHEMA-001", Error, "a2a-0.3",
        "The card does not validate against the A2A 0.3.0 JSON Schema (a2a.json, AgentCard).",
        "0.3 clients generated from that schema reject the card.",
        "Fix the member named in the message.";
    A2A03_VER_001 = "A2A03-VER-001", Warning, "a2a-0.3",
        "protocolVersion is not a 0.3 version.",
        "The card is linted against the 0.3 schema but says it speaks another version.",
        "Write \"0.3.0\", or migrate the card to 1.0.";
    A2A03_MIG_001 = "A2A03-MIG-001", Info, "a2a-0.3",
        "Migration: url, preferredTransport and protocolVersion become supportedInterfaces[0].",
        "1.0 reads endpoints only from supportedInterfaces.",
        "See the message for the 1.0 interface object.";
    A2A03_MIG_002 = "A2A03-MIG-002", Info, "a2a-0.3",
        "Migration: each additionalInterfaces entry becomes a supportedInterfaces entry.",
        "1.0 has a single ordered interface list.",
        "Append {url, protocolBinding: TRANSPORT, protocolVersion: \"1.0\"} for each entry not already listed.";
    A2A03_MIG_003 = "A2A03-MIG-003", Info, "a2a-0.3",
        "Migration: supportsAuthenticatedExtendedCard becomes capabilities.extendedAgentCard.",
        "The flag moved into capabilities in 1.0.",
        "Set capabilities.extendedAgentCard and delete the top-level member.";
    A2A03_MIG_004 = "A2A03-MIG-004", Info, "a2a-0.3",
        "Migration: capabilities.stateTransitionHistory is removed in 1.0.",
        "1.0 has no such capability.",
        "Delete it.";
    A2A03_MIG_005 = "A2A03-MIG-005", Info, "a2a-0.3",
        "Migration: security becomes securityRequirements with the 1.0 shape.",
        "1.0 parsers ignore security.",
        "Write securityRequirements: [{\"schemes\": {\"NAME\": {\"list\": [SCOPES]}}}] (card and skills).";
    A2A03_MIG_006 = "A2A03-MIG-006", Info, "a2a-0.3",
        "Migration: a 0.3 security scheme ({\"type\": ...}) becomes a 1.0 oneof member.",
        "1.0 SecurityScheme is keyed by member name (apiKeySecurityScheme with location, httpAuthSecurityScheme, ...).",
        "See the message for the 1.0 form.";
    A2A03_MIG_007 = "A2A03-MIG-007", Info, "a2a-0.3",
        "Migration: after the mechanical migration, a 1.0 rule would still fail.",
        "Some 1.0 requirements cannot be derived from a 0.3 card (e.g. non-empty tags, media types).",
        "Fix the issue named in the message when publishing the 1.0 card.";

    AV_REQ_001 = "AV-REQ-001", Error, "agentvault-1.0",
        "A member the AgentVault v1.0 card requires is missing (card, provider.name, capabilities.a2aVersion, authScheme.scheme, skill id/name/description).",
        "AgentVault's registry and client reject the card.",
        "Add the member.";
    AV_REQ_002 = "AV-REQ-002", Warning, "agentvault-1.0",
        "A required string member is empty.",
        "AgentVault's model accepts an empty string, but an empty name or id identifies nothing.",
        "Give the member a real value.";
    AV_REQ_003 = "AV-REQ-003", Error, "agentvault-1.0",
        "A known member has the wrong JSON type.",
        "AgentVault's Pydantic model rejects it, or silently coerces it (e.g. \"yes\" to true), which other consumers will not.",
        "Use the type the AgentVault schema defines (see the message).";
    AV_UNK_001 = "AV-UNK-001", Warning, "agentvault-1.0",
        "A member the AgentVault model does not define.",
        "AgentVault's Pydantic model drops unknown members, so the registry stores the card without it.",
        "Remove the member or move the data into a defined field.";
    AV_VER_001 = "AV-VER-001", Error, "agentvault-1.0",
        "schemaVersion is not \"1.0\".",
        "The specification defines version 1.0 only (AgentVault's model does not check this; skillgate follows the written rule).",
        "Write \"schemaVersion\": \"1.0\".";
    AV_URL_001 = "AV-URL-001", Error, "agentvault-1.0",
        "url is not HTTPS and its host is not loopback.",
        "The specification requires HTTPS unless localhost. skillgate decides loopback from the parsed host (localhost, 127.0.0.0/8, ::1); AgentVault's model checks a string prefix and so accepts http://localhost.evil.com.",
        "Serve the endpoint over https.";
    AV_URL_002 = "AV-URL-002", Error, "agentvault-1.0",
        "A URL member is not a valid absolute URL (e.g. an invalid port).",
        "AgentVault parses URLs as HttpUrl and rejects the card; clients cannot connect.",
        "Write a valid absolute http(s) URL.";
    AV_URL_003 = "AV-URL-003", Warning, "agentvault-1.0",
        "A URL carries credentials (user:password@host).",
        "The card is public and AgentVault's registry stores the URL as given (its model accepts it).",
        "Remove the userinfo and declare authentication in authSchemes.";
    AV_COMPAT_001 = "AV-COMPAT-001", Warning, "agentvault-1.0",
        "url is acceptable by the written rule but AgentVault's own model rejects it.",
        "The model accepts http only with the literal prefix http://localhost, so http://127.0.0.1 or http://[::1] cards do not register.",
        "Use http://localhost:PORT for local cards, or https.";
    AV_AUTH_001 = "AV-AUTH-001", Error, "agentvault-1.0",
        "authSchemes is empty.",
        "The specification requires at least one scheme; clients cannot pick one from nothing.",
        "Add a scheme, e.g. {\"scheme\": \"none\"} for a public agent.";
    AV_AUTH_002 = "AV-AUTH-002", Error, "agentvault-1.0",
        "An auth scheme is not one of apiKey, oauth2, bearer, none.",
        "AgentVault clients implement only these four.",
        "Use one of the four schemes (HTTP basic is not supported; use bearer or apiKey).";
    AV_AUTH_003 = "AV-AUTH-003", Error, "agentvault-1.0",
        "An oauth2 scheme has no tokenUrl.",
        "The client-credentials flow needs the token endpoint.",
        "Add tokenUrl.";
    AV_AUTH_004 = "AV-AUTH-004", Warning, "agentvault-1.0",
        "An oauth2 tokenUrl is not HTTPS and not loopback.",
        "Client secrets would travel in clear text (AgentVault's model accepts it).",
        "Use an https token endpoint.";
    AV_TEE_001 = "AV-TEE-001", Error, "agentvault-1.0",
        "capabilities.teeDetails is present without type.",
        "type is required whenever teeDetails is present.",
        "Add the TEE technology, e.g. \"type\": \"Intel SGX\".";
    AV_DATE_001 = "AV-DATE-001", Error, "agentvault-1.0",
        "lastUpdated is not an ISO 8601 date or date-time.",
        "The specification requires ISO 8601 (AgentVault's model does not check it; skillgate follows the written rule).",
        "Write e.g. \"2025-01-15T10:30:00Z\".";
    AV_SKILL_001 = "AV-SKILL-001", Warning, "agentvault-1.0",
        "Two skills share one id.",
        "The id is meant to be unique within the agent; AgentVault's model does not check it.",
        "Give every skill its own id.";
    AV_SCHEMA_001 = "AV-SCHEMA-001", Warning, "agentvault-1.0",
        "A skill's input_schema or output_schema is not a valid, self-contained JSON Schema.",
        "AgentVault's model accepts any object, so a broken schema is published as if it were a contract.",
        "Fix the schema (the message names the problem); remote $ref is not resolved.";
    AV_BP_001 = "AV-BP-001", Warning, "agentvault-1.0",
        "humanReadableId is not namespaced as organization/agent-name.",
        "Best practice 1 of the specification; the namespace keeps ids unique across publishers.",
        "Write e.g. \"myorg/weather-reporter\".";
    AV_BP_002 = "AV-BP-002", Warning, "agentvault-1.0",
        "agentVersion is not a semantic version MAJOR.MINOR.PATCH.",
        "Best practice 2 of the specification.",
        "Write e.g. \"2.1.0\".";

    SI_001 = "SI-001", Error, "all",
        "An extension looks like the schema-interface extension but its uri is not the exact URI.",
        "Clients match extension URIs exactly; a near-miss (case, trailing slash, http) is a different, unknown extension.",
        "Use https://agentic-network-management.github.io/agent-schema-interfaces/extensions/schema-interface/v1 exactly.";
    SI_002 = "SI-002", Error, "all",
        "The schema-interface extension is declared more than once.",
        "Clients read one declaration; which one is undefined.",
        "Merge the declarations into one.";
    SI_003 = "SI-003", Error, "all",
        "The extension's params is missing or not an object.",
        "params carries the interface version and the advertised skills.",
        "Add params {\"interface_version\": \"1.0\", \"skills\": [...]}.";
    SI_004 = "SI-004", Error, "all",
        "params.interface_version is not \"1.0\".",
        "Interface version 1.0 is the only one defined; a client must not guess another version's rules.",
        "Write \"interface_version\": \"1.0\".";
    SI_005 = "SI-005", Error, "all",
        "params.skills is missing or not an array.",
        "The client selects the skill version and interface digest from it.",
        "Add \"skills\": [{\"skill_id\", \"skill_version\", \"interface_digest\"}].";
    SI_006 = "SI-006", Warning, "all",
        "params.skills is empty.",
        "The extension then advertises nothing.",
        "List the schema-governed skills, or drop the extension.";
    SI_007 = "SI-007", Error, "all",
        "An advertised skill entry is not an object with string skill_id, skill_version and interface_digest.",
        "All three are needed to select and verify the interface.",
        "Give each entry the three members as strings.";
    SI_008 = "SI-008", Error, "all",
        "An advertised skill_version does not match ^(0|[1-9][0-9]*)\\.(0|[1-9][0-9]*)$.",
        "Versions are Major.Minor without leading zeros.",
        "Write e.g. \"1.0\".";
    SI_009 = "SI-009", Error, "all",
        "An advertised interface_digest does not match ^sha256:[0-9a-f]{64}$.",
        "The digest is compared byte for byte with the one the client computes.",
        "Write \"sha256:\" followed by 64 lowercase hex digits of the RFC 8785 digest of the document.";
    SI_010 = "SI-010", Error, "all",
        "A skill id is advertised more than once in params.skills.",
        "The profile allows one binding (version and digest) per skill id.",
        "Keep one entry per skill id.";
    SI_011 = "SI-011", Error, "all",
        "An advertised skill is not in the card's skills[].",
        "Every advertised skill_id must also be a skill of the card.",
        "Add the skill to skills[] or remove the entry.";
    SI_012 = "SI-012", Error, "all",
        "The card advertises the extension but has no describe_skill skill.",
        "Clients retrieve interfaces by calling describe_skill.",
        "Add a skill with id describe_skill to skills[].";
    SI_013 = "SI-013", Warning, "all",
        "describe_skill itself is listed in params.skills.",
        "describe_skill is the retrieval skill, not a schema-governed skill; the profile keeps it out of params.skills.",
        "Remove the describe_skill entry from params.skills.";
    SI_014 = "SI-014", Warning, "all",
        "The extension is declared required: true.",
        "Clients that do not implement the extension then get ExtensionSupportRequiredError (-32008) for every request, including discovery.",
        "Declare it required: false (or omit required).";
    SI_015 = "SI-015", Info, "all",
        "params or an advertised entry has a member the profile does not define.",
        "Clients ignore it.",
        "Check the spelling (skill_id, skill_version, interface_digest, interface_version, skills).";
    SI_DEEP_001 = "SI-DEEP-001", Error, "all (--deep)",
        "describe_skill could not be called for an advertised skill, or failed.",
        "The advertised interface cannot be retrieved.",
        "Make the agent answer describe_skill for every advertised skill.";
    SI_DEEP_002 = "SI-DEEP-002", Error, "all (--deep)",
        "The three digests disagree: card, describe_skill response and the digest computed from the returned document.",
        "A client must not delegate when they differ (interface_invalid).",
        "Republish the card with the digest of the served document.";
    SI_DEEP_003 = "SI-DEEP-003", Error, "all (--deep)",
        "The Skill Interface Document returned by describe_skill is invalid.",
        "A client must reject it (interface_invalid).",
        "Fix the document (the message names the member).";
}

/// Looks a rule up by id.
pub fn by_id(id: &str) -> Option<&'static Rule> {
    ALL.iter().copied().find(|r| r.id == id)
}

/// The Markdown catalogue (the content of `docs/lint-rules.md`).
pub fn catalogue_markdown() -> String {
    let mut out = String::new();
    out.push_str("# skillgate card lint: rule catalogue\n\n");
    out.push_str(
        "Generated from `crates/skillgate-lint/src/rules.rs` (a test keeps this file identical; \
regenerate with `SKILLGATE_BLESS=1 cargo test -p skillgate-lint --test catalogue`).\n\n",
    );
    out.push_str(
        "Severity is fixed per rule. `error` fails the lint (exit 1); `warning` and `info` do not.\n\
Ids are stable: rules are retired, never renumbered.\n\n",
    );
    out.push_str(
        "Usage: `skillgate card lint FILE|URL|- [--profile auto|a2a-1.0|a2a-0.3|agentvault-1.0] \
[--format text|json|sarif] [--deep]`. Exit 0 without errors, 1 with errors, 2 when the input is \
unreadable or not JSON (the message gives line and column). A URL whose path does not end in \
`.json` is an agent base URL: the card is fetched from `/.well-known/agent-card.json` under it \
(through the client transport: `--timeout` per request, 30 s by default; 3 redirects; 1 MiB). \
`--deep` (URLs only) calls describe_skill for every advertised skill \
and reports `SI-DEEP-*`. With `--format json` each finding also carries the `line` and \
`column` the text shows, and an exit-2 failure is also written to stdout in the one failure \
shape of every command, `{\"ok\": false, \"where\": \"local\", \"code\", \"message\", \"details\": [], \
\"line\"?, \"column\"?}` (codes `unreadable`, `fetch_failed`, `too_large`, `not_json`, `timeout`); with `--format sarif` as a log whose invocation is unsuccessful.\n\n",
    );
    out.push_str(&format!("{} rules.\n\n", ALL.len()));
    out.push_str("| id | severity | profiles | what |\n|---|---|---|---|\n");
    for r in ALL {
        out.push_str(&format!(
            "| [`{}`](#{}) | {} | {} | {} |\n",
            r.id,
            r.id.to_ascii_lowercase(),
            r.severity.as_str(),
            r.profiles,
            r.what.replace('|', "\\|")
        ));
    }
    for r in ALL {
        out.push_str(&format!(
            "\n## {}\n\n- severity: {}\n- profiles: {}\n- what: {}\n- why: {}\n- fix: {}\n",
            r.id,
            r.severity.as_str(),
            r.profiles,
            r.what,
            r.why,
            r.fix
        ));
    }
    out
}
