//! What the host tells us about its network interfaces: `/proc/net/dev` counters and the
//! `/sys/class/net/<if>/` link attributes.
//!
//! Parsing is pure ([`parse_net_dev`], [`parse_speed`], [`parse_mtu`]) so every edge case can be
//! tested on text; file access sits behind [`HostSource`], whose production implementation
//! [`SysfsHost`] reads below a configurable root (`/` on a real host, a fixture directory in tests).

use std::fmt;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Upper bound on the bytes read from one host file; `/proc/net/dev` with a thousand
/// interfaces is ~150 KiB, so anything larger is not the file we expect.
pub const MAX_HOST_FILE_BYTES: u64 = 1024 * 1024;

/// Cumulative counters of one interface, as the kernel reports them in `/proc/net/dev`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InterfaceCounters {
    /// Interface name as the kernel spells it.
    pub interface: String,
    /// Bytes received.
    pub rx_bytes: u64,
    /// Packets received.
    pub rx_packets: u64,
    /// Receive errors.
    pub rx_errors: u64,
    /// Received packets dropped.
    pub rx_dropped: u64,
    /// Bytes transmitted.
    pub tx_bytes: u64,
    /// Packets transmitted.
    pub tx_packets: u64,
    /// Transmit errors.
    pub tx_errors: u64,
    /// Transmit packets dropped.
    pub tx_dropped: u64,
}

/// A line of `/proc/net/dev` that is not in the kernel's format.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("/proc/net/dev line {line}: {message}")]
pub struct ParseError {
    /// 1-based line number.
    pub line: usize,
    /// What was wrong; never more than the interface name of the offending line.
    pub message: String,
}

/// Number of counter columns per interface line (8 receive, 8 transmit).
const NET_DEV_COLUMNS: usize = 16;

/// Parses the text of `/proc/net/dev` (lines as [`interface_lines`] splits them). Additional
/// trailing columns are tolerated so a future kernel that appends one does not break us; fewer
/// than 16 is an error.
///
/// ```
/// use skillgate_netops::host::parse_net_dev;
/// let c = parse_net_dev("  eth0:38529776 1877 0 0 0 0 0 0 157661 1468 0 0 0 0 0 0\n").unwrap();
/// assert_eq!((c[0].interface.as_str(), c[0].rx_bytes, c[0].tx_packets), ("eth0", 38529776, 1468));
/// ```
pub fn parse_net_dev(text: &str) -> Result<Vec<InterfaceCounters>, ParseError> {
    let mut out: Vec<InterfaceCounters> = Vec::new();
    for entry in interface_lines(text) {
        let (line, name, rest) = entry?;
        if out.iter().any(|c| c.interface == name) {
            return Err(listed_twice(line, name));
        }
        out.push(counters_of(line, name, rest)?);
    }
    Ok(out)
}

/// The counters of `interface` alone, from the text of `/proc/net/dev`; `None` when it is not
/// listed. Every line's layout is checked as [`parse_net_dev`] checks it, but only this
/// interface's counters are read (and checked): a skill observing one interface need not pay
/// for every interface's sixteen numbers on each call.
///
/// ```
/// use skillgate_netops::host::find_net_dev;
/// let text = "  lo: 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16\n eth0: 7 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n";
/// assert_eq!(find_net_dev(text, "eth0").unwrap().unwrap().rx_bytes, 7);
/// assert!(find_net_dev(text, "eth1").unwrap().is_none());
/// ```
pub fn find_net_dev(text: &str, interface: &str) -> Result<Option<InterfaceCounters>, ParseError> {
    let mut found = None;
    for entry in interface_lines(text) {
        let (line, name, rest) = entry?;
        if name != interface {
            continue;
        }
        if found.is_some() {
            return Err(listed_twice(line, name));
        }
        found = Some(counters_of(line, name, rest)?);
    }
    Ok(found)
}

/// The interface lines of `/proc/net/dev` as (1-based line number, name, text after the
/// colon), blank lines and the two header lines left out. The kernel right-aligns the name in
/// a 6-character field and lets a large byte count run into the colon
/// (`eth0:1234567890 ...`), so a line is split at its first colon (an interface name cannot
/// contain one), not at whitespace.
fn interface_lines(text: &str) -> impl Iterator<Item = Result<(usize, &str, &str), ParseError>> {
    text.lines().enumerate().filter_map(|(index, raw)| {
        let line = index + 1;
        if raw.trim_ascii().is_empty() {
            return None;
        }
        let Some((name, rest)) = raw.split_once(':') else {
            if line <= 2 && raw.contains('|') {
                return None; // the two header lines
            }
            return Some(Err(ParseError {
                line,
                message: "expected `<interface>: <16 counters>`".into(),
            }));
        };
        let name = name.trim();
        if name.is_empty() || name.contains(char::is_whitespace) {
            return Some(Err(ParseError {
                line,
                message: "empty or malformed interface name".into(),
            }));
        }
        Some(Ok((line, name, rest)))
    })
}

fn listed_twice(line: usize, name: &str) -> ParseError {
    ParseError {
        line,
        message: format!("interface {name} listed twice"),
    }
}

/// The counters of the interface `name` from the text after its colon.
fn counters_of(line: usize, name: &str, rest: &str) -> Result<InterfaceCounters, ParseError> {
    let values = read_columns(rest).map_err(|e| ParseError {
        line,
        message: match e {
            Columns::Missing(n) => {
                format!("interface {name}: {n} counters, expected {NET_DEV_COLUMNS}")
            }
            Columns::NotANumber(n) => {
                format!("interface {name}: counter {n} is not an unsigned integer")
            }
        },
    })?;
    Ok(InterfaceCounters {
        interface: name.to_owned(),
        rx_bytes: values[0],
        rx_packets: values[1],
        rx_errors: values[2],
        rx_dropped: values[3],
        tx_bytes: values[8],
        tx_packets: values[9],
        tx_errors: values[10],
        tx_dropped: values[11],
    })
}

/// What is wrong with the counter columns of a line.
#[derive(Debug, PartialEq, Eq)]
enum Columns {
    /// Only this many columns.
    Missing(usize),
    /// The column with this 1-based number is not an unsigned 64-bit decimal.
    NotANumber(usize),
}

/// Reads the counter columns after an interface's colon: ASCII decimal numbers (digits only)
/// separated by ASCII whitespace; columns after the sixteenth are not read. One pass over the
/// bytes: every evaluate_resource_condition call parses the whole file, and splitting it into
/// words and parsing each word was most of the skill's cost (callgrind, docs/benchmarks.md).
fn read_columns(rest: &str) -> Result<[u64; NET_DEV_COLUMNS], Columns> {
    let mut values = [0u64; NET_DEV_COLUMNS];
    let mut done = 0;
    let mut current: Option<u64> = None;
    for &b in rest.as_bytes() {
        if b.is_ascii_whitespace() {
            if let Some(v) = current.take() {
                values[done] = v;
                done += 1;
                if done == NET_DEV_COLUMNS {
                    return Ok(values);
                }
            }
        } else {
            let digit = b.checked_sub(b'0').filter(|d| *d <= 9);
            current = digit
                .and_then(|d| {
                    current
                        .unwrap_or(0)
                        .checked_mul(10)?
                        .checked_add(u64::from(d))
                })
                .map(Some)
                .ok_or(Columns::NotANumber(done + 1))?;
        }
    }
    if let Some(v) = current {
        values[done] = v;
        done += 1;
    }
    if done == NET_DEV_COLUMNS {
        Ok(values)
    } else {
        Err(Columns::Missing(done))
    }
}

/// Interface operational state (RFC 2863 names, as in `/sys/class/net/<if>/operstate`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OperState {
    /// `up`
    Up,
    /// `down`
    Down,
    /// `unknown` (loopback and many virtual devices report this while working)
    Unknown,
    /// `dormant`
    Dormant,
    /// `testing`
    Testing,
    /// `notpresent`
    NotPresent,
    /// `lowerlayerdown`
    LowerLayerDown,
}

impl OperState {
    /// Every state, in the order the measurement schema's enum lists them.
    pub const ALL: [OperState; 7] = [
        OperState::Up,
        OperState::Down,
        OperState::Unknown,
        OperState::Dormant,
        OperState::Testing,
        OperState::NotPresent,
        OperState::LowerLayerDown,
    ];

    /// The kernel's spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            OperState::Up => "up",
            OperState::Down => "down",
            OperState::Unknown => "unknown",
            OperState::Dormant => "dormant",
            OperState::Testing => "testing",
            OperState::NotPresent => "notpresent",
            OperState::LowerLayerDown => "lowerlayerdown",
        }
    }

    /// Reads the kernel's spelling; a word the kernel does not use today becomes `Unknown`
    /// rather than an error, since it is what RFC 2863 says for "cannot be determined".
    pub fn parse(text: &str) -> OperState {
        let word = text.trim();
        OperState::ALL
            .into_iter()
            .find(|s| s.as_str() == word)
            .unwrap_or(OperState::Unknown)
    }
}

impl fmt::Display for OperState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Link attributes of one interface from sysfs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkInfo {
    /// Operational state.
    pub operstate: OperState,
    /// MTU in bytes.
    pub mtu: u64,
    /// Link speed in Mbit/s; `None` when the kernel does not know it (file missing, `EINVAL`
    /// on read as for `lo`, or `-1` as for a virtual NIC).
    pub speed_mbps: Option<u64>,
}

/// Interprets the text of `speed`: a positive integer, else unknown (the kernel writes `-1`
/// for "unknown", and 0 would make utilization a division by zero).
pub fn parse_speed(text: &str) -> Option<u64> {
    match text.trim().parse::<i64>() {
        Ok(v) if v > 0 => u64::try_from(v).ok(),
        _ => None,
    }
}

/// Interprets the text of `mtu`.
pub fn parse_mtu(text: &str) -> Option<u64> {
    text.trim().parse::<u64>().ok()
}

/// The sysfs attributes we read; a closed set, so no caller can make us open another file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LinkAttribute {
    /// `speed`
    Speed,
    /// `operstate`
    OperState,
    /// `mtu`
    Mtu,
}

impl LinkAttribute {
    /// File name under `/sys/class/net/<if>/`.
    pub fn file_name(self) -> &'static str {
        match self {
            LinkAttribute::Speed => "speed",
            LinkAttribute::OperState => "operstate",
            LinkAttribute::Mtu => "mtu",
        }
    }
}

/// Why the host could not be read.
#[derive(Debug, thiserror::Error)]
pub enum HostError {
    /// A file could not be read.
    #[error("cannot read {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The OS error.
        source: io::Error,
    },
    /// A file is larger than [`MAX_HOST_FILE_BYTES`].
    #[error("{path} is larger than {limit} bytes")]
    TooLarge {
        /// The file.
        path: PathBuf,
        /// The bound.
        limit: u64,
    },
    /// `/proc/net/dev` is not in the expected format.
    #[error(transparent)]
    Parse(#[from] ParseError),
    /// An interface name that could leave `/sys/class/net/` (empty, `.`, `..`, `/`, NUL).
    #[error("{0:?} is not a usable interface name")]
    BadInterfaceName(String),
    /// A sysfs attribute is missing or unreadable where the kernel always provides it.
    #[error("interface {interface}: {attribute} is missing or not a number")]
    BadAttribute {
        /// The interface.
        interface: String,
        /// The attribute file name.
        attribute: &'static str,
    },
}

/// Where host facts come from. The production implementation is [`SysfsHost`]; the trait exists
/// so the same code can read a fixture tree, never to fake results.
pub trait HostSource: Send + Sync + fmt::Debug + 'static {
    /// The full text of `/proc/net/dev`.
    fn net_dev(&self) -> Result<String, HostError>;

    /// The text of one link attribute, or `Ok(None)` when the kernel does not provide it for
    /// this interface (missing file, or `EINVAL` on read, as `lo`'s `speed` does).
    fn link_attribute(
        &self,
        interface: &str,
        attribute: LinkAttribute,
    ) -> Result<Option<String>, HostError>;
}

/// Reads `<root>/proc/net/dev` and `<root>/sys/class/net/<if>/…`.
#[derive(Debug, Clone)]
pub struct SysfsHost {
    root: PathBuf,
    /// `<root>/proc/net/dev`, joined once: every evaluate reads it.
    net_dev: PathBuf,
}

impl SysfsHost {
    /// The real host (`/`).
    pub fn new() -> Self {
        Self::with_root("/")
    }

    /// A tree laid out like `/` (used for fixtures and containers with the host mounted elsewhere).
    pub fn with_root(root: impl Into<PathBuf>) -> Self {
        let root = root.into();
        let net_dev = root.join("proc/net/dev");
        Self { root, net_dev }
    }

    /// The configured root.
    pub fn root(&self) -> &Path {
        &self.root
    }
}

impl Default for SysfsHost {
    fn default() -> Self {
        Self::new()
    }
}

/// Reads a whole file, refusing one larger than [`MAX_HOST_FILE_BYTES`]; `/proc` files report
/// size 0 in metadata, so the bound is enforced while reading.
fn read_bounded(path: &Path) -> Result<String, io::Error> {
    let file = std::fs::File::open(path)?;
    // A /proc file's size reads as 0, so std cannot size the buffer: one page takes
    // /proc/net/dev of a host with a few dozen interfaces in one read.
    let mut text = String::with_capacity(4096);
    file.take(MAX_HOST_FILE_BYTES + 1)
        .read_to_string(&mut text)?;
    Ok(text)
}

/// Rejects names that would make a path outside the interface's own sysfs directory.
fn check_interface_name(interface: &str) -> Result<(), HostError> {
    if interface.is_empty()
        || interface == "."
        || interface == ".."
        || interface.contains(['/', '\0'])
    {
        return Err(HostError::BadInterfaceName(interface.to_owned()));
    }
    Ok(())
}

impl HostSource for SysfsHost {
    fn net_dev(&self) -> Result<String, HostError> {
        let path = &self.net_dev;
        let text = read_bounded(path).map_err(|source| HostError::Io {
            path: path.clone(),
            source,
        })?;
        if text.len() as u64 > MAX_HOST_FILE_BYTES {
            return Err(HostError::TooLarge {
                path: path.clone(),
                limit: MAX_HOST_FILE_BYTES,
            });
        }
        Ok(text)
    }

    fn link_attribute(
        &self,
        interface: &str,
        attribute: LinkAttribute,
    ) -> Result<Option<String>, HostError> {
        check_interface_name(interface)?;
        let path = self
            .root
            .join("sys/class/net")
            .join(interface)
            .join(attribute.file_name());
        match read_bounded(&path) {
            Ok(text) if text.len() as u64 > MAX_HOST_FILE_BYTES => Err(HostError::TooLarge {
                path,
                limit: MAX_HOST_FILE_BYTES,
            }),
            Ok(text) => Ok(Some(text)),
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::NotFound | io::ErrorKind::InvalidInput
                ) =>
            {
                Ok(None)
            }
            // EINVAL is what the kernel answers for `speed` on a link that has none.
            Err(e) if e.raw_os_error() == Some(22) => Ok(None),
            Err(source) => Err(HostError::Io { path, source }),
        }
    }
}

/// Reads and parses the counters of every interface.
pub fn read_counters(source: &dyn HostSource) -> Result<Vec<InterfaceCounters>, HostError> {
    Ok(parse_net_dev(&source.net_dev()?)?)
}

/// Reads the link attributes of one interface. A missing `operstate` reads as `unknown`;
/// a missing `mtu` is an error, since every netdev has one.
pub fn read_link(source: &dyn HostSource, interface: &str) -> Result<LinkInfo, HostError> {
    let operstate = source
        .link_attribute(interface, LinkAttribute::OperState)?
        .map(|t| OperState::parse(&t))
        .unwrap_or(OperState::Unknown);
    let mtu = source
        .link_attribute(interface, LinkAttribute::Mtu)?
        .as_deref()
        .and_then(parse_mtu)
        .ok_or_else(|| HostError::BadAttribute {
            interface: interface.to_owned(),
            attribute: LinkAttribute::Mtu.file_name(),
        })?;
    let speed_mbps = source
        .link_attribute(interface, LinkAttribute::Speed)?
        .as_deref()
        .and_then(parse_speed);
    Ok(LinkInfo {
        operstate,
        mtu,
        speed_mbps,
    })
}

/// Byte rates of one interface between two readings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rates {
    /// Received bytes per second.
    pub rx_bytes_per_second: f64,
    /// Transmitted bytes per second.
    pub tx_bytes_per_second: f64,
}

/// A counter that is smaller in the second reading than in the first.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("interface {interface}: {counter} went backwards between the two readings (counter reset or interface re-created)")]
pub struct CounterReset {
    /// The interface.
    pub interface: String,
    /// Which counter.
    pub counter: &'static str,
}

/// Computes byte rates from two readings `elapsed` apart. A counter that went backwards is an
/// error, not a zero rate: a silent zero would make "below threshold" look true.
pub fn rates(
    first: &InterfaceCounters,
    second: &InterfaceCounters,
    elapsed: Duration,
) -> Result<Rates, CounterReset> {
    let delta = |a: u64, b: u64, counter: &'static str| {
        b.checked_sub(a).ok_or_else(|| CounterReset {
            interface: second.interface.clone(),
            counter,
        })
    };
    let rx = delta(first.rx_bytes, second.rx_bytes, "rx_bytes")?;
    let tx = delta(first.tx_bytes, second.tx_bytes, "tx_bytes")?;
    // A zero elapsed time cannot happen with a sleep in between; guard anyway, rates stay finite.
    let seconds = elapsed.as_secs_f64().max(1e-9);
    Ok(Rates {
        rx_bytes_per_second: rx as f64 / seconds,
        tx_bytes_per_second: tx as f64 / seconds,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "Inter-|   Receive                                                |  Transmit
 face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed
    lo:    3193      29    0    0    0     0          0         0     3193      29    0    0    0     0       0          0
  eth0:38529776    1877    3    4    0     0          0         0   157661    1468    5    6    0     0       0          0
";

    #[test]
    fn parses_kernel_layout_including_name_glued_to_count() {
        let c = parse_net_dev(SAMPLE).unwrap();
        assert_eq!(c.len(), 2);
        assert_eq!(c[0].interface, "lo");
        assert_eq!(
            (c[0].rx_bytes, c[0].rx_packets, c[0].tx_bytes),
            (3193, 29, 3193)
        );
        let e = &c[1];
        assert_eq!(e.interface, "eth0");
        assert_eq!(
            (e.rx_bytes, e.rx_packets, e.rx_errors, e.rx_dropped),
            (38529776, 1877, 3, 4)
        );
        assert_eq!(
            (e.tx_bytes, e.tx_packets, e.tx_errors, e.tx_dropped),
            (157661, 1468, 5, 6)
        );
    }

    #[test]
    fn accepts_u64_max_and_extra_columns() {
        let text = format!(
            "x: {} 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17\n",
            u64::MAX
        );
        let c = parse_net_dev(&text).unwrap();
        assert_eq!(c[0].rx_bytes, u64::MAX);
        assert_eq!(c[0].tx_dropped, 11);
    }

    #[test]
    fn rejects_short_lines_bad_numbers_and_duplicates() {
        let short = parse_net_dev("eth0: 1 2 3\n").unwrap_err();
        assert_eq!(short.line, 1);
        assert!(short.message.contains("3 counters"), "{short}");
        let neg = parse_net_dev("eth0: -1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16\n").unwrap_err();
        assert!(neg.message.contains("counter 1"), "{neg}");
        let over = format!("eth0: {}0 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16\n", u64::MAX);
        assert!(parse_net_dev(&over).is_err());
        let dup = "a: 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\na: 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n";
        assert_eq!(parse_net_dev(dup).unwrap_err().line, 2);
        let junk = parse_net_dev("Inter-|\n face |\nno colon here\n").unwrap_err();
        assert_eq!(junk.line, 3);
        assert!(parse_net_dev(": 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n").is_err());
    }

    #[test]
    fn find_reads_one_interface_and_checks_every_line_layout() {
        let all = parse_net_dev(SAMPLE).unwrap();
        assert_eq!(
            find_net_dev(SAMPLE, "eth0").unwrap().as_ref(),
            Some(&all[1])
        );
        assert_eq!(find_net_dev(SAMPLE, "lo").unwrap().as_ref(), Some(&all[0]));
        assert_eq!(find_net_dev(SAMPLE, "eth1").unwrap(), None);
        assert_eq!(find_net_dev(SAMPLE, "").unwrap(), None);
        // Another interface's numbers are not read; the layout of its line is.
        let other_bad = "lo: 1 2 x\neth0: 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 9\n";
        assert_eq!(
            find_net_dev(other_bad, "eth0").unwrap().unwrap().tx_bytes,
            0
        );
        assert!(parse_net_dev(other_bad).is_err());
        assert_eq!(find_net_dev("lo 1 2\n", "eth0").unwrap_err().line, 1);
        // Its own line is checked, and it must be listed once.
        let own_bad = find_net_dev("eth0: 1 2 3\n", "eth0").unwrap_err();
        assert!(own_bad.message.contains("3 counters"), "{own_bad}");
        let twice =
            "a: 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\nb: 1\na: 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n";
        assert_eq!(find_net_dev(twice, "a").unwrap_err().line, 3);
    }

    #[test]
    fn columns_are_digits_between_ascii_whitespace() {
        let sixteen: Vec<u64> = (1..=16).collect();
        let spaced = "\t1 2  3\t4 5 6 7 8 9 10 11 12 13 14 15 16 junk: here\r";
        assert_eq!(read_columns(spaced).unwrap().to_vec(), sixteen);
        assert_eq!(read_columns("1 2 3"), Err(Columns::Missing(3)));
        assert_eq!(read_columns(""), Err(Columns::Missing(0)));
        // A sign, a unit or a fraction is not a counter (`u64::from_str` would take `+5`).
        for bad in ["+5", "5k", "1.5"] {
            let text = format!("1 {bad} 3 4 5 6 7 8 9 10 11 12 13 14 15 16");
            assert_eq!(read_columns(&text), Err(Columns::NotANumber(2)), "{bad}");
        }
        let last_over = format!("1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 {}0", u64::MAX);
        assert_eq!(read_columns(&last_over), Err(Columns::NotANumber(16)));
    }

    #[test]
    fn header_only_and_empty_text_give_no_interfaces() {
        let header: String = SAMPLE.lines().take(2).collect::<Vec<_>>().join("\n");
        assert!(parse_net_dev(&header).unwrap().is_empty());
        assert!(parse_net_dev("").unwrap().is_empty());
    }

    #[test]
    fn speed_and_mtu_text() {
        assert_eq!(parse_speed("1000\n"), Some(1000));
        assert_eq!(parse_speed("-1\n"), None);
        assert_eq!(parse_speed("0"), None);
        assert_eq!(parse_speed("fast"), None);
        assert_eq!(parse_mtu("1500\n"), Some(1500));
        assert_eq!(parse_mtu("-5"), None);
    }

    #[test]
    fn operstate_words() {
        for s in OperState::ALL {
            assert_eq!(OperState::parse(&format!("{s}\n")), s);
        }
        assert_eq!(OperState::parse("sideways"), OperState::Unknown);
    }

    #[test]
    fn rates_divide_by_elapsed_and_refuse_backwards_counters() {
        let a = parse_net_dev("e: 1000 0 0 0 0 0 0 0 500 0 0 0 0 0 0 0").unwrap();
        let b = parse_net_dev("e: 3000 0 0 0 0 0 0 0 500 0 0 0 0 0 0 0").unwrap();
        let r = rates(&a[0], &b[0], Duration::from_millis(500)).unwrap();
        assert_eq!(r.rx_bytes_per_second, 4000.0);
        assert_eq!(r.tx_bytes_per_second, 0.0);
        let err = rates(&b[0], &a[0], Duration::from_millis(500)).unwrap_err();
        assert_eq!(err.counter, "rx_bytes");
    }

    #[test]
    fn interface_names_cannot_escape_sysfs() {
        let host = SysfsHost::new();
        for bad in ["", ".", "..", "../etc", "a/b", "a\0b"] {
            assert!(matches!(
                host.link_attribute(bad, LinkAttribute::Mtu),
                Err(HostError::BadInterfaceName(_))
            ));
        }
    }

    #[test]
    fn real_host_has_loopback() {
        let host = SysfsHost::new();
        let all = read_counters(&host).unwrap();
        assert!(all.iter().any(|c| c.interface == "lo"), "{all:?}");
        let lo = read_link(&host, "lo").unwrap();
        assert!(lo.mtu > 0);
        // Loopback has no link speed: the kernel answers EINVAL, which must read as unknown.
        assert_eq!(lo.speed_mbps, None);
    }
}
