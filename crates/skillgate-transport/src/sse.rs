//! Incremental `text/event-stream` decoding.
//!
//! Lines end in CRLF, LF or a bare CR (all three are legal in the event-stream grammar), and a
//! CR that ends one chunk may be the first half of a CRLF split across chunks. Each byte is
//! scanned once and the buffer is compacted once per [`SseParser::push`], so a stream delivered
//! one byte at a time, or a chunk holding thousands of lines, costs linear time. The caller
//! bounds the total size (the transport's response limit).

/// One server-sent event: its `event` type (empty = `message`) and its `data` lines joined
/// with `\n`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SseEvent {
    /// The `event:` field.
    pub event: String,
    /// The `data:` lines joined with `\n`.
    pub data: String,
}

/// The decoder state between chunks.
#[derive(Debug, Default)]
pub struct SseParser {
    buffer: Vec<u8>,
    /// Bytes at the start of `buffer` already known to hold no line end.
    scanned: usize,
    /// The previous chunk ended in CR: a LF at the start of the next one belongs to it.
    pending_cr: bool,
    current: SseEvent,
    has_data: bool,
}

impl SseParser {
    /// Feeds bytes; returns the events completed by them.
    pub fn push(&mut self, bytes: &[u8]) -> Vec<SseEvent> {
        let mut bytes = bytes;
        if self.pending_cr && !bytes.is_empty() {
            self.pending_cr = false;
            if let Some(rest) = bytes.strip_prefix(b"\n") {
                bytes = rest;
            }
        }
        self.buffer.extend_from_slice(bytes);
        let mut out = Vec::new();
        let mut line_start = 0;
        let mut i = self.scanned;
        while let Some(off) = self.buffer[i..]
            .iter()
            .position(|&b| b == b'\n' || b == b'\r')
        {
            let end = i + off;
            let mut next = end + 1;
            if self.buffer[end] == b'\r' {
                match self.buffer.get(next) {
                    Some(b'\n') => next += 1,
                    Some(_) => {}
                    None => self.pending_cr = true,
                }
            }
            let line = String::from_utf8_lossy(&self.buffer[line_start..end]).into_owned();
            self.line(&line, &mut out);
            line_start = next;
            i = next;
        }
        self.buffer.drain(..line_start);
        self.scanned = self.buffer.len();
        out
    }

    /// Ends the stream; a final event without its blank line is still delivered.
    pub fn finish(&mut self) -> Vec<SseEvent> {
        let mut out = Vec::new();
        if !self.buffer.is_empty() {
            let rest = std::mem::take(&mut self.buffer);
            self.line(&String::from_utf8_lossy(&rest), &mut out);
        }
        self.scanned = 0;
        self.pending_cr = false;
        self.line("", &mut out);
        out
    }

    fn line(&mut self, line: &str, out: &mut Vec<SseEvent>) {
        if line.is_empty() {
            if self.has_data {
                out.push(std::mem::take(&mut self.current));
            }
            self.current = SseEvent::default();
            self.has_data = false;
            return;
        }
        if line.starts_with(':') {
            return;
        }
        let (field, value) = match line.split_once(':') {
            Some((f, v)) => (f, v.strip_prefix(' ').unwrap_or(v)),
            None => (line, ""),
        };
        match field {
            "data" => {
                if self.has_data {
                    self.current.data.push('\n');
                }
                self.current.data.push_str(value);
                self.has_data = true;
            }
            "event" => self.current.event = value.to_owned(),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn all(chunks: &[&[u8]]) -> Vec<SseEvent> {
        let mut p = SseParser::default();
        let mut out = Vec::new();
        for c in chunks {
            out.extend(p.push(c));
        }
        out.extend(p.finish());
        out
    }

    #[test]
    fn split_chunks_crlf_and_comments() {
        let events = all(&[
            b": hi\r\ndata: {\"a\"",
            b":1}\r\n\r\nevent: error\ndata: x\ndata: y\n\n",
            b"data: tail",
        ]);
        assert_eq!(events.len(), 3);
        assert_eq!(events[0].data, "{\"a\":1}");
        assert_eq!(events[1].event, "error");
        assert_eq!(events[1].data, "x\ny");
        assert_eq!(events[2].data, "tail");
    }

    #[test]
    fn bare_cr_ends_lines() {
        let events = all(&[b"data: a\r\rdata: b\rdata: c\r\r"]);
        assert_eq!(events.len(), 2);
        assert_eq!(events[0].data, "a");
        assert_eq!(events[1].data, "b\nc");
    }

    #[test]
    fn crlf_split_across_chunks_is_one_line_end() {
        // CR at the end of one chunk, LF at the start of the next: one line end, so the blank
        // line that follows still ends the event (and no empty line is seen in between).
        let events = all(&[b"data: a\r", b"\ndata: b\r", b"\n\r", b"\n"]);
        assert_eq!(events.len(), 1);
        assert_eq!(events[0].data, "a\nb");
    }

    #[test]
    fn many_lines_in_one_chunk_stay_linear() {
        // 200,000 events in one chunk: with a drain per line this took seconds (quadratic);
        // here it is one pass. The test only checks the result; the speed is in the bench.
        let mut big = Vec::new();
        for i in 0..200_000u32 {
            big.extend_from_slice(format!("data: {i}\n\n").as_bytes());
        }
        let events = all(&[&big]);
        assert_eq!(events.len(), 200_000);
        assert_eq!(events[199_999].data, "199999");
    }

    proptest! {
        #[test]
        fn chunking_does_not_change_the_events(
            lines in proptest::collection::vec("[a-z :]{0,12}", 0..20),
            ends in proptest::collection::vec(0u8..3, 20),
            cut in proptest::collection::vec(0usize..200, 0..6),
        ) {
            let mut text = Vec::new();
            for (i, l) in lines.iter().enumerate() {
                text.extend_from_slice(l.as_bytes());
                text.extend_from_slice(match ends[i] { 0 => b"\n" as &[u8], 1 => b"\r\n", _ => b"\r" });
            }
            let whole = all(&[&text]);
            let mut cuts: Vec<usize> = cut.into_iter().map(|c| c.min(text.len())).collect();
            cuts.sort_unstable();
            let mut chunks: Vec<&[u8]> = Vec::new();
            let mut at = 0;
            for c in cuts {
                chunks.push(&text[at..c]);
                at = c;
            }
            chunks.push(&text[at..]);
            prop_assert_eq!(all(&chunks), whole);
        }
    }
}
