//! A private Xvfb display for headed Chrome on Linux machines without a display.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use rand::RngCore;
use tokio::io::AsyncBufReadExt;
use tokio::process::{Child, Command};

use crate::LaunchError;

/// A running private X server and its authority file.
#[derive(Debug)]
pub(crate) struct Xvfb {
    child: Child,
    /// `:N`
    pub display: String,
    /// The MIT-MAGIC-COOKIE-1 authority file (0600).
    pub authority: PathBuf,
}

impl Xvfb {
    /// Starts `Xvfb -displayfd 1` with a fresh cookie, no TCP, on a screen of `width`×`height`.
    pub(crate) async fn start(width: u32, height: u32) -> Result<Xvfb, LaunchError> {
        let binary = which::which("Xvfb").map_err(|_| LaunchError::Xvfb {
            reason: "Xvfb is not installed (needed for headed Chrome without a display); install \
                     it or set AGENT_BROWSER_NO_XVFB and provide DISPLAY"
                .into(),
        })?;
        let authority =
            std::env::temp_dir().join(format!("agent-browser-xauth-{}", random_hex(16)));
        write_authority(&authority).map_err(|e| LaunchError::Xvfb {
            reason: format!("cannot write {}: {e}", authority.display()),
        })?;
        let mut child = Command::new(binary)
            .args(["-displayfd", "1", "-screen", "0"])
            .arg(format!("{width}x{height}x24"))
            .args(["-nolisten", "tcp", "-auth"])
            .arg(&authority)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .process_group(0)
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| LaunchError::Xvfb {
                reason: format!("cannot start Xvfb: {e}"),
            })?;
        let Some(stdout) = child.stdout.take() else {
            return Err(LaunchError::Xvfb {
                reason: "Xvfb stdout missing".into(),
            });
        };
        let mut lines = tokio::io::BufReader::new(stdout).lines();
        let number = tokio::time::timeout(Duration::from_secs(10), lines.next_line()).await;
        let display = match number {
            Ok(Ok(Some(line))) if line.trim().parse::<u32>().is_ok() => format!(":{}", line.trim()),
            _ => {
                let _ = child.start_kill();
                let _ = std::fs::remove_file(&authority);
                return Err(LaunchError::Xvfb {
                    reason: "Xvfb did not report a display number within 10 s".into(),
                });
            }
        };
        Ok(Xvfb {
            child,
            display,
            authority,
        })
    }

    /// The Xvfb pid.
    pub(crate) fn pid(&self) -> Option<u32> {
        self.child.id()
    }

    /// Stops Xvfb and removes the authority file.
    pub(crate) async fn stop(mut self) -> bool {
        let _ = self.child.start_kill();
        let stopped = tokio::time::timeout(Duration::from_secs(2), self.child.wait())
            .await
            .is_ok();
        let _ = std::fs::remove_file(&self.authority);
        stopped
    }
}

fn random_hex(bytes: usize) -> String {
    let mut buf = vec![0u8; bytes];
    rand::rng().fill_bytes(&mut buf);
    buf.iter().map(|b| format!("{b:02x}")).collect()
}

/// Writes one FamilyWild MIT-MAGIC-COOKIE-1 record with an empty display number, which Xlib
/// matches for any display: we only learn the number after Xvfb starts.
fn write_authority(path: &Path) -> std::io::Result<()> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let mut cookie = [0u8; 16];
    rand::rng().fill_bytes(&mut cookie);
    let family: u16 = 0xffff;
    let mut out = family.to_be_bytes().to_vec();
    for data in [&b""[..], &b""[..], &b"MIT-MAGIC-COOKIE-1"[..], &cookie[..]] {
        out.extend_from_slice(&(data.len() as u16).to_be_bytes());
        out.extend_from_slice(data);
    }
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)?;
    file.write_all(&out)
}
