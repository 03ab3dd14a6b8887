//! The wire under `capture mcp`: standard input read a line at a time, each line judged
//! before rmcp sees it, and one writer for standard output.
//!
//! rmcp's own stdio transport drops what it cannot parse without a word (malformed JSON, a
//! line that is not UTF-8, a line over its length cap; issue 48), so a client that sent one
//! waits for an answer that never comes. Here every line that is not a message rmcp can
//! take gets a JSON-RPC error with `id` null (the id of a request that did not parse
//! cannot be known): a line over [`MAX_REQUEST_BYTES`] (read no further than the cap and
//! skipped to its end), bytes that are not UTF-8, nesting deeper than [`MAX_NESTING`] (told
//! by one pass over the bytes, before any parse), text that is not JSON (`-32700`), a batch
//! (a JSON array: MCP has none since 2025-06-18), a JSON value that is not an object, and an
//! object that is not a JSON-RPC message (`-32600`, with its id where it has a usable one).
//! A malformed notification (a `method` and no `id`) gets no answer, as JSON-RPC says.
//!
//! Every message out, rmcp's and these, is one `write` of a whole line under one lock, so
//! lines never interleave; a response over [`MAX_MESSAGE_BYTES`] (which the tools' paging
//! keeps from happening) is replaced by an error for its id, since MCP clients drop a
//! message over 16 MiB.

use std::future::Future;
use std::io::{BufRead, Write};
use std::sync::{Arc, Mutex};

use rmcp::model::JsonRpcMessage;
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::RoleServer;
use serde_json::{json, Value};

/// The longest request line read: 1 MiB. A tool call names a few paths and a regular
/// expression; a line longer than this is not a request this server can use.
pub const MAX_REQUEST_BYTES: usize = 1 << 20;

/// The deepest nesting of arrays and objects a request may have: 64. MCP's messages nest
/// a handful of levels; a line of 100,000 `[` is refused by counting, not by parsing.
pub const MAX_NESTING: usize = 64;

/// The largest message written: 15 MiB, under the 16 MiB that MCP clients accept.
pub const MAX_MESSAGE_BYTES: usize = 15 << 20;

/// JSON-RPC's code for text that is not JSON.
const PARSE_ERROR: i64 = -32700;
/// JSON-RPC's code for JSON that is not a valid request.
const INVALID_REQUEST: i64 = -32600;
/// JSON-RPC's code for an error of the server.
const INTERNAL_ERROR: i64 = -32603;

/// What is done with one line of input.
#[derive(Debug)]
pub enum Judged {
    /// A message for rmcp.
    Deliver(Box<RxJsonRpcMessage<RoleServer>>),
    /// An error response to write at once.
    Answer(Value),
    /// Nothing (a blank line, a malformed notification).
    Ignore,
}

/// A JSON-RPC error response.
fn error(id: Value, code: i64, message: String) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

/// Where nesting first passes [`MAX_NESTING`], outside strings: the byte offset.
fn too_deep(line: &[u8]) -> Option<usize> {
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    for (at, &b) in line.iter().enumerate() {
        if in_string {
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                if depth > MAX_NESTING {
                    return Some(at);
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    None
}

/// Judges one line (without its line end).
pub fn judge(line: &[u8]) -> Judged {
    let line = line.strip_prefix(b"\xef\xbb\xbf").unwrap_or(line);
    if line.iter().all(u8::is_ascii_whitespace) {
        return Judged::Ignore;
    }
    let text = match std::str::from_utf8(line) {
        Ok(t) => t,
        Err(e) => {
            return Judged::Answer(error(
                Value::Null,
                PARSE_ERROR,
                format!(
                    "Parse error: byte {}: not UTF-8 (JSON-RPC messages are UTF-8 text)",
                    e.valid_up_to()
                ),
            ))
        }
    };
    if let Some(at) = too_deep(line) {
        return Judged::Answer(error(
            Value::Null,
            INVALID_REQUEST,
            format!("Invalid Request: byte {at}: nested deeper than {MAX_NESTING} levels"),
        ));
    }
    let value: Value = match serde_json::from_str(text) {
        Ok(v) => v,
        Err(e) => {
            return Judged::Answer(error(Value::Null, PARSE_ERROR, format!("Parse error: {e}")))
        }
    };
    let object = match &value {
        Value::Object(o) => o,
        Value::Array(_) => {
            return Judged::Answer(error(
                Value::Null,
                INVALID_REQUEST,
                "Invalid Request: a batch (JSON array) is not supported; send one message a \
                 line"
                    .into(),
            ))
        }
        _ => {
            return Judged::Answer(error(
                Value::Null,
                INVALID_REQUEST,
                "Invalid Request: a JSON-RPC message is an object".into(),
            ))
        }
    };
    match serde_json::from_value::<RxJsonRpcMessage<RoleServer>>(value.clone()) {
        Ok(message) => Judged::Deliver(Box::new(message)),
        Err(_) if object.contains_key("method") && !object.contains_key("id") => Judged::Ignore,
        Err(e) => {
            let id = match object.get("id") {
                Some(id @ Value::String(_)) => id.clone(),
                Some(id @ Value::Number(n)) if n.is_i64() => id.clone(),
                _ => Value::Null,
            };
            Judged::Answer(error(id, INVALID_REQUEST, format!("Invalid Request: {e}")))
        }
    }
}

/// How a line was read.
enum Line {
    /// A whole line is in the buffer.
    Whole,
    /// The line passed [`MAX_REQUEST_BYTES`]; it was skipped to its end.
    TooLong,
    /// The input ended (or failed).
    End,
}

/// Reads one line into `buf` (cleared first), holding at most [`MAX_REQUEST_BYTES`] of it.
fn read_line(input: &mut impl BufRead, buf: &mut Vec<u8>) -> Line {
    buf.clear();
    let mut too_long = false;
    loop {
        let (used, done) = match input.fill_buf() {
            Ok([]) | Err(_) => {
                return match (too_long, buf.is_empty()) {
                    (true, _) => Line::TooLong,
                    (false, true) => Line::End,
                    // A last line without a line end is still a line.
                    (false, false) => Line::Whole,
                };
            }
            Ok(available) => {
                let end = available.iter().position(|&b| b == b'\n');
                let take = end.map_or(available.len(), |at| at + 1);
                if !too_long && buf.len() + take <= MAX_REQUEST_BYTES + 1 {
                    buf.extend_from_slice(available.get(..take).unwrap_or_default());
                } else {
                    too_long = true;
                    buf.clear();
                }
                (take, end.is_some())
            }
        };
        input.consume(used);
        if done {
            if buf.last() == Some(&b'\n') {
                buf.pop();
            }
            if buf.last() == Some(&b'\r') {
                buf.pop();
            }
            return if too_long { Line::TooLong } else { Line::Whole };
        }
    }
}

/// Standard output (or, in tests, any writer), written a whole line at a time.
pub struct Output {
    out: Mutex<Box<dyn Write + Send>>,
}

impl Output {
    /// Writes `message` as one line.
    fn line(&self, message: &[u8]) -> std::io::Result<()> {
        let mut bytes = Vec::with_capacity(message.len() + 1);
        bytes.extend_from_slice(message);
        bytes.push(b'\n');
        let mut out = self
            .out
            .lock()
            .map_err(|_| std::io::Error::other("standard output's lock is poisoned"))?;
        out.write_all(&bytes)?;
        out.flush()
    }

    /// Writes `value`.
    fn value(&self, value: &Value) -> std::io::Result<()> {
        self.line(value.to_string().as_bytes())
    }

    /// Writes rmcp's `message`; a response over [`MAX_MESSAGE_BYTES`] becomes an error for
    /// its id.
    fn message(&self, message: &TxJsonRpcMessage<RoleServer>) -> std::io::Result<()> {
        let bytes = serde_json::to_vec(message).map_err(std::io::Error::other)?;
        if bytes.len() <= MAX_MESSAGE_BYTES {
            return self.line(&bytes);
        }
        let id = match message {
            JsonRpcMessage::Response(r) => serde_json::to_value(&r.id).unwrap_or(Value::Null),
            JsonRpcMessage::Error(e) => serde_json::to_value(&e.id).unwrap_or(Value::Null),
            _ => Value::Null,
        };
        self.value(&error(
            id,
            INTERNAL_ERROR,
            format!(
                "the response is {} bytes, over the {MAX_MESSAGE_BYTES}-byte cap of a message; \
                 ask for less (max_bytes, offset, kernel, top)",
                bytes.len()
            ),
        ))
    }
}

/// Reads `input` to its end: every line judged, errors answered on `out`, messages given to
/// `deliver` (until it returns false: rmcp has stopped).
pub fn pump(
    mut input: impl BufRead,
    out: &Output,
    mut deliver: impl FnMut(RxJsonRpcMessage<RoleServer>) -> bool,
) {
    let mut buf = Vec::new();
    loop {
        let judged = match read_line(&mut input, &mut buf) {
            Line::End => return,
            Line::TooLong => Judged::Answer(error(
                Value::Null,
                INVALID_REQUEST,
                format!("Invalid Request: a line over {MAX_REQUEST_BYTES} bytes; not read"),
            )),
            Line::Whole => judge(&buf),
        };
        let ok = match judged {
            Judged::Deliver(m) => deliver(*m),
            Judged::Answer(v) => out.value(&v).is_ok(),
            Judged::Ignore => true,
        };
        if !ok {
            return;
        }
    }
}

/// The transport rmcp serves over: messages from the reading thread, responses to
/// [`Output`].
pub struct Wire {
    incoming: tokio::sync::mpsc::Receiver<RxJsonRpcMessage<RoleServer>>,
    out: Arc<Output>,
}

impl Wire {
    /// Standard input and output; a thread reads standard input ([`pump`]).
    pub fn stdio() -> Wire {
        let out = Arc::new(Output {
            out: Mutex::new(Box::new(std::io::stdout())),
        });
        let (send, incoming) = tokio::sync::mpsc::channel(16);
        let writer = Arc::clone(&out);
        std::thread::spawn(move || {
            pump(std::io::stdin().lock(), &writer, |m| {
                send.blocking_send(m).is_ok()
            });
        });
        Wire { incoming, out }
    }
}

impl Transport<RoleServer> for Wire {
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        std::future::ready(self.out.message(&item))
    }

    fn receive(&mut self) -> impl Future<Output = Option<RxJsonRpcMessage<RoleServer>>> + Send {
        self.incoming.recv()
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.incoming.close();
        std::future::ready(Ok(()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a line came to: an answer's error code and id, or what else.
    type Outcome = Result<(i64, Value), &'static str>;

    /// The error code of an answer, or what else the line came to.
    fn code(line: &[u8]) -> Outcome {
        match judge(line) {
            Judged::Answer(v) => Ok((v["error"]["code"].as_i64().unwrap_or(0), v["id"].clone())),
            Judged::Deliver(_) => Err("delivered"),
            Judged::Ignore => Err("ignored"),
        }
    }

    #[test]
    fn every_malformed_line_is_answered_and_messages_pass() {
        let deep = "[".repeat(100_000);
        let cases: &[(&[u8], Outcome)] = &[
            (
                b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}",
                Err("delivered"),
            ),
            (b"   ", Err("ignored")),
            (b"{not json", Ok((PARSE_ERROR, Value::Null))),
            (
                b"[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]",
                Ok((INVALID_REQUEST, Value::Null)),
            ),
            (
                b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"x\":\"\xff\"}",
                Ok((PARSE_ERROR, Value::Null)),
            ),
            (b"\"just a string\"", Ok((INVALID_REQUEST, Value::Null))),
            (b"{\"id\":7}", Ok((INVALID_REQUEST, json!(7)))),
            (
                b"{\"jsonrpc\":\"2.0\",\"id\":1.5,\"method\":\"ping\"}",
                Ok((INVALID_REQUEST, Value::Null)),
            ),
            (deep.as_bytes(), Ok((INVALID_REQUEST, Value::Null))),
        ];
        for (line, want) in cases {
            let got = code(line);
            assert_eq!(
                &got,
                want,
                "{}",
                String::from_utf8_lossy(&line[..line.len().min(80)])
            );
        }
        // Brackets inside strings are not nesting.
        let quoted = format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"x\",\"params\":{{\"a\":\"{deep}\"}}}}"
        );
        assert!(!matches!(code(quoted.as_bytes()), Ok((INVALID_REQUEST, _))));
    }

    /// A writer tests read back.
    #[derive(Clone, Default)]
    struct Shared(Arc<Mutex<Vec<u8>>>);

    impl Write for Shared {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0.lock().expect("lock").extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_line_over_the_cap_is_answered_without_being_held_and_the_next_is_read() {
        let mut input = vec![b'x'; MAX_REQUEST_BYTES * 3];
        input.extend_from_slice(b"\n{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}\n{oops");
        let written = Shared::default();
        let out = Output {
            out: Mutex::new(Box::new(written.clone())),
        };
        let mut delivered = 0;
        pump(std::io::BufReader::new(&input[..]), &out, |_| {
            delivered += 1;
            true
        });
        assert_eq!(delivered, 1);
        let text = String::from_utf8(written.0.lock().expect("lock").clone()).expect("utf-8");
        let lines: Vec<Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).expect("JSON"))
            .collect();
        assert_eq!(lines.len(), 2, "{text}");
        assert!(lines[0]["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("over 1048576 bytes")));
        assert_eq!(lines[1]["error"]["code"], PARSE_ERROR);
    }
}
