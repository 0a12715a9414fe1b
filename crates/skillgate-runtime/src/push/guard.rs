//! The SSRF guard of push notifications: which webhook URLs and addresses the server may
//! POST to.
//!
//! A webhook URL is checked when its config is created (so a refused one is a clear
//! `InvalidParams` error and nothing is ever sent), and every address is checked again when a
//! delivery connects: the delivery client resolves names through [`GuardedResolver`], which
//! refuses a name that resolves to a guarded address, so a DNS answer that changes between the
//! check and the connection (DNS rebinding) cannot reach one either. URLs with a literal IP
//! address never reach a resolver; the delivery checks those itself before each attempt.

pub use ipnet::IpNet;
#[cfg(feature = "push")]
use std::net::SocketAddr;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
#[cfg(feature = "push")]
use std::sync::Arc;
use std::time::Duration;

/// How long resolving a webhook host may take.
const RESOLVE_TIMEOUT: Duration = Duration::from_secs(5);

/// Why an address is guarded: the rule that covers it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rule {
    /// 127.0.0.0/8, ::1.
    Loopback,
    /// RFC 1918 (10/8, 172.16/12, 192.168/16) and unique local fc00::/7.
    Private,
    /// 169.254/16, fe80::/10.
    LinkLocal,
    /// Carrier-grade NAT, 100.64/10.
    Cgnat,
    /// 224/4, ff00::/8, and the broadcast address.
    Multicast,
    /// 0.0.0.0/8 and ::.
    Unspecified,
    /// Cloud instance metadata: 169.254.169.254, fd00:ec2::254.
    Metadata,
    /// 240/4 and other ranges that are no destination on the Internet.
    Reserved,
}

impl Rule {
    /// The rule as the refusal names it.
    pub fn describe(self) -> &'static str {
        match self {
            Rule::Loopback => "loopback",
            Rule::Private => "private (RFC 1918 / fc00::/7)",
            Rule::LinkLocal => "link-local",
            Rule::Cgnat => "carrier-grade NAT (100.64.0.0/10)",
            Rule::Multicast => "multicast or broadcast",
            Rule::Unspecified => "unspecified",
            Rule::Metadata => "a cloud metadata endpoint",
            Rule::Reserved => "reserved",
        }
    }
}

/// The rule that guards `ip`, or `None` for an ordinary public address. IPv4-mapped IPv6
/// addresses (`::ffff:10.0.0.1`) are judged as the IPv4 address they carry.
pub fn classify(ip: IpAddr) -> Option<Rule> {
    match ip {
        IpAddr::V4(v4) => classify_v4(v4),
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => classify_v4(v4),
            None => classify_v6(v6),
        },
    }
}

fn classify_v4(ip: Ipv4Addr) -> Option<Rule> {
    let [a, b, ..] = ip.octets();
    Some(if ip == Ipv4Addr::new(169, 254, 169, 254) {
        Rule::Metadata
    } else if ip.is_loopback() {
        Rule::Loopback
    } else if ip.is_private() {
        Rule::Private
    } else if ip.is_link_local() {
        Rule::LinkLocal
    } else if a == 100 && (64..128).contains(&b) {
        Rule::Cgnat
    } else if ip.is_multicast() || ip.is_broadcast() {
        Rule::Multicast
    } else if a == 0 {
        Rule::Unspecified
    } else if a >= 240
        // 198.18.0.0/15 (benchmarking, RFC 2544) and 192.0.0.0/24 (IETF protocol
        // assignments, e.g. DS-Lite's 192.0.0.0/29): no destination on the Internet, and on some
        // networks an internal one.
        || (a == 198 && (b & 0xfe) == 18)
        || (a == 192 && b == 0 && ip.octets()[2] == 0)
    {
        Rule::Reserved
    } else {
        return None;
    })
}

fn classify_v6(ip: Ipv6Addr) -> Option<Rule> {
    let seg = ip.segments();
    if ip == Ipv6Addr::new(0xfd00, 0x0ec2, 0, 0, 0, 0, 0, 0x0254) {
        return Some(Rule::Metadata);
    }
    if ip.is_loopback() {
        return Some(Rule::Loopback);
    }
    if ip.is_unspecified() {
        return Some(Rule::Unspecified);
    }
    // Forms that carry an IPv4 address reach that address (through a NAT64 or 6to4 relay, or
    // a stack that still honours IPv4-compatible addresses): judged by the address carried.
    if let Some(v4) = embedded_v4(&seg) {
        return classify_v4(v4);
    }
    let first = seg[0];
    Some(if first & 0xfe00 == 0xfc00 || first & 0xffc0 == 0xfec0 {
        // Unique local, and the deprecated site-local fec0::/10 some stacks still route.
        Rule::Private
    } else if first & 0xffc0 == 0xfe80 {
        Rule::LinkLocal
    } else if ip.is_multicast() {
        Rule::Multicast
    } else if (seg[0], seg[1]) == (0x2001, 0)
        || (seg[0], seg[1], seg[2]) == (0x64, 0xff9b, 1)
        || (seg[0], seg[1], seg[2], seg[3]) == (0x100, 0, 0, 0)
    {
        // Teredo (its client address is obfuscated, and its server could be anything), the
        // local-use NAT64 prefix 64:ff9b:1::/48 (RFC 8215: a site's own translator), and the
        // discard-only 100::/64.
        Rule::Reserved
    } else {
        return None;
    })
}

/// The IPv4 address an IPv6 address carries: IPv4-compatible `::a.b.c.d` (deprecated, but
/// routed as IPv4 by some stacks), the NAT64 well-known prefix `64:ff9b::/96` (RFC 6052) and
/// 6to4 `2002:AABB:CCDD::/48` (RFC 3056). IPv4-mapped addresses are handled by [`classify`].
fn embedded_v4(seg: &[u16; 8]) -> Option<Ipv4Addr> {
    let v4 = |hi: u16, lo: u16| {
        let [a, b] = hi.to_be_bytes();
        let [c, d] = lo.to_be_bytes();
        Ipv4Addr::new(a, b, c, d)
    };
    match seg {
        [0, 0, 0, 0, 0, 0, hi, lo] => Some(v4(*hi, *lo)),
        [0x64, 0xff9b, 0, 0, 0, 0, hi, lo] => Some(v4(*hi, *lo)),
        [0x2002, hi, lo, ..] => Some(v4(*hi, *lo)),
        _ => None,
    }
}

/// A webhook the guard refuses, with the message the caller gets. The caller is remote, so
/// no message says how the guard is configured or which setting would admit the webhook.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refused {
    /// Not an absolute http(s) URL with a host, or one carrying credentials.
    #[error("webhook url {0}")]
    Url(String),
    /// `http://` while plain-HTTP webhooks are off, or to an address that is not loopback.
    #[error("{0}")]
    Scheme(String),
    /// A guarded address.
    #[error("webhook address {ip} is {}", rule.describe())]
    Address {
        /// The address.
        ip: IpAddr,
        /// The rule covering it.
        rule: Rule,
    },
    /// A host name resolved to a guarded address. Which address, and which rule, are not
    /// said: a caller must not be able to map internal names by trying them.
    #[error("webhook host {host} resolves to a refused address")]
    ResolvesToGuarded {
        /// The host name, as the caller gave it.
        host: String,
    },
    /// The host did not resolve.
    #[error("webhook host {host} does not resolve: {why}")]
    Resolve {
        /// The host.
        host: String,
        /// Why.
        why: String,
    },
}

/// The guard's policy: what `--allow-http-push` and `--push-allow-cidr` allow.
#[derive(Debug, Clone, Default)]
pub struct Guard {
    /// `--allow-http-push`: `http://` webhooks on loopback addresses, and loopback addresses
    /// (for `https://` too).
    pub allow_http_loopback: bool,
    /// `--push-allow-cidr`: ranges allowed whatever rule covers them.
    pub allow: Vec<IpNet>,
}

impl Guard {
    /// Whether the server may connect to `ip`.
    pub fn check_ip(&self, ip: IpAddr) -> Result<(), Refused> {
        let Some(rule) = classify(ip) else {
            return Ok(());
        };
        if self.allow.iter().any(|n| n.contains(&ip))
            || (rule == Rule::Loopback && self.allow_http_loopback)
        {
            return Ok(());
        }
        Err(Refused::Address { ip, rule })
    }

    /// Parses a webhook URL and checks what can be checked without the network: absolute,
    /// `https` (or `http` with `--allow-http-push`), a host, no credentials, and a literal IP
    /// address allowed.
    pub fn check_url(&self, raw: &str) -> Result<url::Url, Refused> {
        let u = url::Url::parse(raw).map_err(|e| {
            Refused::Url(format!(
                "must be an absolute URL such as https://hooks.example/a2a ({e})"
            ))
        })?;
        match u.scheme() {
            "https" => {}
            "http" if self.allow_http_loopback => {}
            "http" => return Err(Refused::Scheme("webhook url must use https".into())),
            other => {
                return Err(Refused::Url(format!(
                    "has scheme {other:?}; it must be https"
                )))
            }
        }
        if u.host_str().is_none_or(str::is_empty) {
            return Err(Refused::Url("has no host".into()));
        }
        if !u.username().is_empty() || u.password().is_some() {
            return Err(Refused::Url(
                "must not carry credentials; use authentication instead".into(),
            ));
        }
        if let Some(ip) = literal_ip(&u) {
            self.check_target(&u, &[ip])?;
        }
        Ok(u)
    }

    /// Checks a literal address of a webhook URL: it must be allowed, and an `http` webhook
    /// must be on loopback only.
    fn check_target(&self, u: &url::Url, addrs: &[IpAddr]) -> Result<(), Refused> {
        for ip in addrs {
            self.check_ip(*ip)?;
            if u.scheme() == "http" && !ip.is_loopback() && classify(*ip) != Some(Rule::Loopback) {
                return Err(Refused::Scheme(format!(
                    "webhook address {ip} is refused for http: use https"
                )));
            }
        }
        Ok(())
    }

    /// Checks every address host name `host` resolved to, refusing without naming the
    /// address (see [`Refused::ResolvesToGuarded`]); `loopback_only` for `http` webhooks.
    fn check_resolved(
        &self,
        host: &str,
        addrs: &[IpAddr],
        loopback_only: bool,
    ) -> Result<(), Refused> {
        for ip in addrs {
            if self.check_ip(*ip).is_err() {
                return Err(Refused::ResolvesToGuarded {
                    host: host.to_owned(),
                });
            }
            if loopback_only && classify(*ip) != Some(Rule::Loopback) {
                return Err(Refused::Scheme(format!(
                    "webhook host {host} resolves to an address refused for http: use https"
                )));
            }
        }
        Ok(())
    }

    /// [`Guard::check_url`], then resolves the host and checks every address it has.
    pub async fn check(&self, raw: &str) -> Result<url::Url, Refused> {
        let u = self.check_url(raw)?;
        if literal_ip(&u).is_none() {
            let host = u.host_str().unwrap_or_default().to_string();
            let addrs = resolve(&host).await?;
            self.check_resolved(&host, &addrs, u.scheme() == "http")?;
        }
        Ok(u)
    }
}

/// A range for [`Guard::allow`]: `ADDRESS/PREFIX` (host bits cleared), or a bare address
/// (that address only).
pub fn parse_cidr(s: &str) -> Result<IpNet, CidrError> {
    if let Ok(n) = s.parse::<IpNet>() {
        return Ok(n.trunc());
    }
    s.parse::<IpAddr>()
        .map(IpNet::from)
        .map_err(|_| CidrError { text: s.to_owned() })
}

/// Text [`parse_cidr`] cannot read as a range or an address (a prefix longer than the
/// address, say, or a host name).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{text:?} is not a CIDR range such as 10.20.0.0/16 or fd00:1::/64, nor an address")]
pub struct CidrError {
    /// The text as given.
    pub text: String,
}

/// The URL's host when it is an IP address literal.
pub(crate) fn literal_ip(u: &url::Url) -> Option<IpAddr> {
    match u.host()? {
        url::Host::Ipv4(v4) => Some(IpAddr::V4(v4)),
        url::Host::Ipv6(v6) => Some(IpAddr::V6(v6)),
        url::Host::Domain(_) => None,
    }
}

/// Every address of `host`, within [`RESOLVE_TIMEOUT`].
async fn resolve(host: &str) -> Result<Vec<IpAddr>, Refused> {
    let failed = |why: String| Refused::Resolve {
        host: host.to_string(),
        why,
    };
    let found = tokio::time::timeout(RESOLVE_TIMEOUT, tokio::net::lookup_host((host, 0)))
        .await
        .map_err(|_| failed(format!("no answer within {RESOLVE_TIMEOUT:?}")))?
        .map_err(|e| failed(e.to_string()))?;
    let addrs: Vec<IpAddr> = found.map(|a| a.ip()).collect();
    if addrs.is_empty() {
        return Err(failed("no address".into()));
    }
    Ok(addrs)
}

#[cfg(feature = "push")]
/// The delivery client's resolver: resolves like the system does, then refuses the name when
/// any address it got is guarded (or, with `loopback_only`, is not loopback), so the
/// connection can only go to addresses checked at connect time.
pub(crate) struct GuardedResolver {
    pub(crate) guard: Arc<Guard>,
    /// For the client of `http://` webhooks: only loopback addresses.
    pub(crate) loopback_only: bool,
}

#[cfg(feature = "push")]
impl reqwest::dns::Resolve for GuardedResolver {
    fn resolve(&self, name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        let guard = Arc::clone(&self.guard);
        let loopback_only = self.loopback_only;
        let host = name.as_str().to_string();
        Box::pin(async move {
            let addrs = resolve(&host).await?;
            guard.check_resolved(&host, &addrs, loopback_only)?;
            let out: reqwest::dns::Addrs =
                Box::new(addrs.into_iter().map(|ip| SocketAddr::new(ip, 0)));
            Ok(out)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn classifies_a_table_of_addresses() {
        let table: &[(&str, Option<Rule>)] = &[
            ("8.8.8.8", None),
            ("1.1.1.1", None),
            ("2606:4700::1111", None),
            ("127.0.0.1", Some(Rule::Loopback)),
            ("127.255.0.9", Some(Rule::Loopback)),
            ("::1", Some(Rule::Loopback)),
            ("::ffff:127.0.0.1", Some(Rule::Loopback)),
            ("10.0.0.5", Some(Rule::Private)),
            ("172.16.0.1", Some(Rule::Private)),
            ("172.31.255.255", Some(Rule::Private)),
            ("172.32.0.1", None),
            ("192.168.1.1", Some(Rule::Private)),
            ("::ffff:192.168.1.1", Some(Rule::Private)),
            ("fc00::1", Some(Rule::Private)),
            ("fd12:3456::1", Some(Rule::Private)),
            ("169.254.1.1", Some(Rule::LinkLocal)),
            ("fe80::1", Some(Rule::LinkLocal)),
            ("febf::1", Some(Rule::LinkLocal)),
            ("100.64.0.1", Some(Rule::Cgnat)),
            ("100.127.255.255", Some(Rule::Cgnat)),
            ("100.128.0.1", None),
            ("224.0.0.1", Some(Rule::Multicast)),
            ("255.255.255.255", Some(Rule::Multicast)),
            ("ff02::1", Some(Rule::Multicast)),
            ("0.0.0.0", Some(Rule::Unspecified)),
            ("0.1.2.3", Some(Rule::Unspecified)),
            ("::", Some(Rule::Unspecified)),
            ("169.254.169.254", Some(Rule::Metadata)),
            ("fd00:ec2::254", Some(Rule::Metadata)),
            ("240.0.0.1", Some(Rule::Reserved)),
            // IPv6 forms that carry an IPv4 address are judged by the address they carry.
            ("::127.0.0.1", Some(Rule::Loopback)),
            ("::10.0.0.5", Some(Rule::Private)),
            ("64:ff9b::a00:5", Some(Rule::Private)),
            ("64:ff9b::7f00:1", Some(Rule::Loopback)),
            ("64:ff9b::a9fe:a9fe", Some(Rule::Metadata)),
            ("64:ff9b::808:808", None),
            ("64:ff9b:1::a00:5", Some(Rule::Reserved)),
            ("2002:a00:5::1", Some(Rule::Private)),
            ("2002:7f00:1::1", Some(Rule::Loopback)),
            ("2002:808:808::1", None),
            ("2001:0:4136:e378:8000:63bf:3fff:fdd2", Some(Rule::Reserved)),
            ("fec0::1", Some(Rule::Private)),
            ("feff::1", Some(Rule::Private)),
            ("100::1", Some(Rule::Reserved)),
            ("198.18.0.1", Some(Rule::Reserved)),
            ("198.19.255.255", Some(Rule::Reserved)),
            ("198.20.0.1", None),
            ("192.0.0.8", Some(Rule::Reserved)),
            ("192.0.1.1", None),
        ];
        for (addr, rule) in table {
            assert_eq!(classify(ip(addr)), *rule, "{addr}");
        }
    }

    #[test]
    fn allow_cidrs_and_the_http_flag_open_exactly_their_ranges() {
        let strict = Guard::default();
        assert!(strict.check_ip(ip("8.8.8.8")).is_ok());
        let e = strict.check_ip(ip("10.0.0.5")).unwrap_err();
        assert_eq!(
            e.to_string(),
            "webhook address 10.0.0.5 is private (RFC 1918 / fc00::/7)"
        );
        assert!(strict.check_ip(ip("127.0.0.1")).is_err());
        let cidr = Guard {
            allow: vec!["10.0.0.0/24".parse().unwrap()],
            ..Guard::default()
        };
        assert!(cidr.check_ip(ip("10.0.0.5")).is_ok());
        assert!(cidr.check_ip(ip("10.0.1.5")).is_err());
        assert!(cidr.check_ip(ip("169.254.169.254")).is_err());
        let http = Guard {
            allow_http_loopback: true,
            ..Guard::default()
        };
        assert!(http.check_ip(ip("127.0.0.1")).is_ok());
        assert!(http.check_ip(ip("::1")).is_ok());
        assert!(http.check_ip(ip("192.168.0.1")).is_err());
    }

    #[test]
    fn cidrs_parse_with_a_clear_error() {
        assert_eq!(
            parse_cidr("10.20.1.7/16").unwrap().to_string(),
            "10.20.0.0/16"
        );
        assert_eq!(parse_cidr("fd00::1").unwrap().to_string(), "fd00::1/128");
        let e = parse_cidr("10.0.0.0/33").unwrap_err();
        assert_eq!(e.text, "10.0.0.0/33");
        assert_eq!(
            e.to_string(),
            "\"10.0.0.0/33\" is not a CIDR range such as 10.20.0.0/16 or fd00:1::/64, nor an address"
        );
    }

    #[test]
    fn urls_are_checked_before_any_network() {
        let strict = Guard::default();
        let msg = |g: &Guard, u: &str| g.check_url(u).unwrap_err().to_string();
        assert!(msg(&strict, "not a url").contains("absolute URL"));
        assert!(msg(&strict, "ftp://x.example/").contains("scheme \"ftp\""));
        assert!(msg(&strict, "http://127.0.0.1:9/").contains("must use https"));
        assert!(msg(&strict, "https://u:p@hooks.example/").contains("credentials"));
        assert!(msg(&strict, "https://10.0.0.5/").contains("10.0.0.5 is private"));
        assert!(msg(&strict, "https://[fd00:ec2::254]/").contains("metadata"));
        assert!(msg(&strict, "https://169.254.169.254/latest").contains("metadata"));
        assert!(strict.check_url("https://203.0.113.9/hook").is_ok());
        let http = Guard {
            allow_http_loopback: true,
            ..Guard::default()
        };
        assert!(http.check_url("http://127.0.0.1:9/hook").is_ok());
        assert_eq!(
            msg(&http, "http://203.0.113.9/"),
            "webhook address 203.0.113.9 is refused for http: use https"
        );
        assert_eq!(
            msg(&strict, "http://127.0.0.1:9/"),
            "webhook url must use https"
        );
        assert!(msg(&http, "http://10.1.2.3/").contains("private"));
    }

    #[tokio::test]
    async fn names_are_judged_by_what_they_resolve_to() {
        // `localhost` resolves to loopback from /etc/hosts: no query leaves the machine.
        let strict = Guard::default();
        let e = strict.check("https://localhost:1/hook").await.unwrap_err();
        // The refusal does not say which address a name resolved to (no mapping of internal
        // names by trial and error).
        assert_eq!(
            e.to_string(),
            "webhook host localhost resolves to a refused address"
        );
        let http = Guard {
            allow_http_loopback: true,
            ..Guard::default()
        };
        assert!(http.check("http://localhost:1/hook").await.is_ok());
    }

    #[tokio::test]
    #[cfg(feature = "push")]
    async fn the_delivery_resolver_checks_every_connection() {
        use reqwest::dns::Resolve;
        let resolve = |guard: Guard, loopback_only: bool| async move {
            let r = GuardedResolver {
                guard: Arc::new(guard),
                loopback_only,
            };
            r.resolve("localhost".parse().unwrap())
                .await
                .map(|a| a.map(|s| s.ip()).collect::<Vec<_>>())
                .map_err(|e| e.to_string())
        };
        let e = resolve(Guard::default(), false).await.unwrap_err();
        assert!(e.contains("resolves to a refused address"), "{e}");
        assert!(!e.contains("127.0.0.1") && !e.contains("::1"), "{e}");
        let http = Guard {
            allow_http_loopback: true,
            ..Guard::default()
        };
        let ips = resolve(http, true).await.unwrap();
        assert!(
            !ips.is_empty() && ips.iter().all(|ip| ip.is_loopback()),
            "{ips:?}"
        );
        // A range opens loopback to the https client without --allow-http-push.
        let lo = Guard {
            allow: vec!["127.0.0.0/8".parse().unwrap(), "::1/128".parse().unwrap()],
            ..Guard::default()
        };
        assert!(resolve(lo, false).await.is_ok());
    }
}
