//! Issue 31 from the command line: `factdesk serve` raises its open-file limit (or
//! refuses to start under one too low, saying how to raise it), and `annotators P
//! sessions` lists and ends sessions while the server runs, as `password` does.

use crate::{new_project, ok, stderr};
use serde_json::Value;
use std::io::Write;
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};

/// `factdesk annotators P ARGS…` with `stdin` piped in.
fn annotators(project: &Path, args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_factdesk"))
        .arg("annotators")
        .arg(project)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{e}"));
    let mut input = child.stdin.take().unwrap_or_else(|| panic!("no stdin"));
    input
        .write_all(stdin.as_bytes())
        .unwrap_or_else(|e| panic!("{e}"));
    drop(input);
    let out = child.wait_with_output().unwrap_or_else(|e| panic!("{e}"));
    assert!(out.status.success(), "{}", stderr(&out));
    out
}

/// A project with a lead (maria) and an annotator (ana), both with passwords.
fn team(dir: &Path) -> std::path::PathBuf {
    let p = new_project(dir);
    for (name, role) in [("maria", "lead"), ("ana", "annotator")] {
        annotators(
            &p,
            &["add", name, "--role", role, "--password-stdin"],
            &format!("{name}-password\n"),
        );
    }
    p
}

/// `factdesk serve P` run by bash after `limit` (a `ulimit` command): the server and
/// its port, or everything it said when it ended without listening.
fn serve_under(project: &Path, limit: &str) -> Result<(Child, u16), String> {
    let child = Command::new("bash")
        .arg("-c")
        .arg(format!(
            "{limit} && exec \"$0\" serve \"$1\" --listen 127.0.0.1:0"
        ))
        .arg(env!("CARGO_BIN_EXE_factdesk"))
        .arg(project)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{e}"));
    crate::serve::listening(child)
}

/// Kills the server when the test ends, however it ends.
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// One HTTP/1.1 request: the status and the JSON body.
fn request(port: u16, method: &str, path: &str, token: Option<&str>, body: &str) -> (u16, Value) {
    crate::serve::request(port, method, path, token, body)
        .unwrap_or_else(|| panic!("no answer to {method} {path}"))
}

fn login(port: u16, name: &str, password: &str) -> String {
    let body = serde_json::json!({"name": name, "password": password}).to_string();
    let (status, reply) = request(port, "POST", "/api/v1/login", None, &body);
    assert_eq!(status, 200, "{reply}");
    reply["token"].as_str().unwrap_or_default().to_string()
}

/// What `token` gets from `/next` and `/call`.
fn statuses(port: u16, token: &str) -> [u16; 2] {
    let call = r#"{"op": "me"}"#;
    [
        request(port, "GET", "/api/v1/next?kind=evidence", Some(token), "").0,
        request(port, "POST", "/api/v1/call", Some(token), call).0,
    ]
}

/// The soft and hard "Max open files" of process `pid`.
fn open_files(pid: u32) -> (String, String) {
    let limits = std::fs::read_to_string(format!("/proc/{pid}/limits"))
        .unwrap_or_else(|e| panic!("/proc/{pid}/limits: {e}"));
    let line = limits
        .lines()
        .find(|l| l.starts_with("Max open files"))
        .unwrap_or_else(|| panic!("no open-file limit in {limits}"));
    let mut fields = line["Max open files".len()..].split_whitespace();
    let mut next = || fields.next().unwrap_or_default().to_string();
    (next(), next())
}

#[cfg(target_os = "linux")]
#[test]
fn serve_raises_its_soft_open_file_limit_to_the_hard_one() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let p = team(dir.path());
    let (child, _port) =
        serve_under(&p, "ulimit -Sn 256").unwrap_or_else(|said| panic!("did not start: {said}"));
    let server = Running(child);
    let (soft, hard) = open_files(server.0.id());
    assert_eq!(
        soft, hard,
        "the soft limit (256 when started) is the hard one now"
    );
    assert_ne!(soft, "256");
}

#[cfg(target_os = "linux")]
#[test]
fn serve_refuses_an_open_file_limit_too_low_for_its_connections_and_says_how_to_raise_it() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let p = team(dir.path());
    match serve_under(&p, "ulimit -n 256") {
        Ok((child, port)) => {
            drop(Running(child));
            panic!("the server started on port {port} with 256 files at most")
        }
        Err(said) => {
            assert!(said.contains("only 256 files"), "{said}");
            assert!(said.contains("LimitNOFILE="), "{said}");
            assert!(said.contains("ulimit -n"), "{said}");
        }
    }
}

#[test]
fn sessions_are_listed_and_ended_from_the_command_line_while_the_server_runs() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let p = team(dir.path());
    let (child, port) = serve_under(&p, "true").unwrap_or_else(|said| panic!("{said}"));
    let _server = Running(child);
    let ana = login(port, "ana", "ana-password");
    assert_eq!(statuses(port, &ana), [200, 200]);

    let listed = annotators(&p, &["sessions", "--json"], "");
    let text = String::from_utf8_lossy(&listed.stdout);
    assert!(!text.contains(&ana), "a token is never shown");
    let sessions: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
    assert_eq!(sessions[0]["name"], "ana");
    assert_eq!(sessions[0]["address"], "127.0.0.1");
    let table = annotators(&p, &["sessions"], "");
    let table = String::from_utf8_lossy(&table.stdout);
    assert!(
        table.contains("last seen") && table.contains("ana"),
        "{table}"
    );

    // A reset ends the sessions the old password opened.
    let reset = annotators(&p, &["password", "ana"], "a-brand-new-password\n");
    assert!(String::from_utf8_lossy(&reset.stdout).contains("sessions ended"));
    assert_eq!(statuses(port, &ana), [401, 401]);

    let ana = login(port, "ana", "a-brand-new-password");
    annotators(&p, &["sessions", "--end", "ana"], "");
    assert_eq!(statuses(port, &ana), [401, 401]);

    let ana = login(port, "ana", "a-brand-new-password");
    let listed = annotators(&p, &["sessions", "--json"], "");
    let sessions: Value = serde_json::from_slice(&listed.stdout).unwrap_or(Value::Null);
    let id = sessions[0]["id"].as_str().unwrap_or_default().to_string();
    annotators(&p, &["sessions", "--end-id", &id], "");
    assert_eq!(statuses(port, &ana), [401, 401]);
    ok([Path::new("annotators"), &p, Path::new("sessions")]);
}
