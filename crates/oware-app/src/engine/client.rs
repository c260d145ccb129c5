//! The GUI side of the protocol: drives an external engine process.
//!
//! Every wait has a deadline, and every failure (the process cannot start, exits, stays
//! silent, answers nonsense or an illegal move) is an [`EngineError`] naming the command
//! and what was expected; nothing here panics or hangs forever.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use oware_core::game::{Game, mask_letters, move_letter};

use super::EngineOption;

/// What went wrong with an engine process.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    /// The process could not be started.
    #[error("engine '{command}': cannot start it: {source}")]
    Spawn {
        /// The command line.
        command: String,
        /// Why.
        source: std::io::Error,
    },
    /// The process closed its output (it exited or crashed).
    #[error("engine '{command}': it exited while we waited for '{waiting_for}'")]
    Exited {
        /// The command line.
        command: String,
        /// The answer expected.
        waiting_for: String,
    },
    /// No answer in time.
    #[error("engine '{command}': no '{waiting_for}' within {ms} ms")]
    Timeout {
        /// The command line.
        command: String,
        /// The answer expected.
        waiting_for: String,
        /// The time allowed, in milliseconds.
        ms: u128,
    },
    /// Writing to the process failed (it has probably exited).
    #[error("engine '{command}': cannot send '{line}': {source}")]
    Send {
        /// The command line.
        command: String,
        /// The line that could not be sent.
        line: String,
        /// Why.
        source: std::io::Error,
    },
    /// An answer that does not follow the protocol.
    #[error("engine '{command}': unexpected answer '{line}' ({expected})")]
    Nonsense {
        /// The command line.
        command: String,
        /// The line received.
        line: String,
        /// What was expected instead.
        expected: String,
    },
    /// The engine chose a move that is not legal.
    #[error("engine '{command}': played '{letter}', which is illegal in {fen} (legal: {legal})")]
    IllegalMove {
        /// The command line.
        command: String,
        /// The move it sent.
        letter: String,
        /// The position.
        fen: String,
        /// The legal moves.
        legal: String,
    },
    /// The engine does not advertise an option the caller needs.
    #[error("engine '{command}': it has no option '{name}'")]
    NoSuchOption {
        /// The command line.
        command: String,
        /// The option's name.
        name: String,
    },
}

/// A running engine process that has answered the `uci`/`isready` handshake.
/// The process is killed when this is dropped. After any error, drop it and start a
/// new one: a late answer to the failed request could be taken for the next one's.
pub struct EngineProcess {
    command: String,
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    name: String,
    options: Vec<EngineOption>,
    timeout: Duration,
}

impl EngineProcess {
    /// Starts `command` (run by `sh -c`, so arguments and quoting work as in a shell)
    /// and does the handshake; `timeout` bounds every wait except searches. The
    /// engine's stderr goes to ours.
    pub fn start(command: &str, timeout: Duration) -> Result<EngineProcess, EngineError> {
        let mut child = Command::new("sh")
            .arg("-c")
            .arg(command)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|source| EngineError::Spawn {
                command: command.to_string(),
                source,
            })?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            let _ = child.kill();
            return Err(EngineError::Spawn {
                command: command.to_string(),
                source: std::io::Error::other("no pipes to the process"),
            });
        };
        let (tx, lines) = channel();
        // A reader thread turns the engine's output into a channel, so waits can time out.
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut e = EngineProcess {
            command: command.to_string(),
            child,
            stdin,
            lines,
            name: String::new(),
            options: Vec::new(),
            timeout,
        };
        e.send("uci")?;
        let deadline = Instant::now() + timeout;
        loop {
            let line = e.next_line("uciok", deadline, timeout)?;
            let line = line.trim();
            if line == "uciok" {
                break;
            }
            if let Some(n) = line.strip_prefix("id name ") {
                e.name = n.trim().to_string();
            } else if let Some(o) = line.strip_prefix("option name ") {
                let (name, spec) = match o.find(" type ") {
                    Some(i) => (&o[..i], &o[i + 1..]),
                    None => (o, ""),
                };
                e.options.push(EngineOption {
                    name: name.trim().to_string(),
                    spec: spec.trim().to_string(),
                });
            }
        }
        e.sync()?;
        Ok(e)
    }

    /// The name the engine gave (`id name`), or "" if it gave none.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The options the engine advertised.
    pub fn options(&self) -> &[EngineOption] {
        &self.options
    }

    /// Sets an option the engine advertised, then waits until it is ready.
    pub fn set_option(&mut self, name: &str, value: &str) -> Result<(), EngineError> {
        if !self
            .options
            .iter()
            .any(|o| o.name.eq_ignore_ascii_case(name))
        {
            return Err(EngineError::NoSuchOption {
                command: self.command.clone(),
                name: name.to_string(),
            });
        }
        self.send(&format!("setoption name {name} value {value}"))?;
        self.sync()
    }

    /// Tells the engine a new game starts, then waits until it is ready.
    pub fn new_game(&mut self) -> Result<(), EngineError> {
        self.send("ucinewgame")?;
        self.sync()
    }

    /// Asks for a move in `game` with `go ARGS` (`depth 8`, `movetime 200`, …) and
    /// waits at most `timeout` for `bestmove`. Returns the action (0..5, checked legal),
    /// or `None` if the game is over and the engine said `0000`.
    pub fn best_move(
        &mut self,
        game: &Game,
        go_args: &str,
        timeout: Duration,
    ) -> Result<Option<u8>, EngineError> {
        let moves = game.move_text();
        let position = if moves.is_empty() {
            format!("position fen {}", game.start())
        } else {
            format!("position fen {} moves {moves}", game.start())
        };
        self.send(&position)?;
        self.send(format!("go {go_args}").trim())?;
        let deadline = Instant::now() + timeout;
        loop {
            let line = self.next_line("bestmove", deadline, timeout)?;
            let mut words = line.split_whitespace();
            match words.next() {
                Some("bestmove") => {}
                Some("info") | None => continue,
                // Other lines are not ours to judge while the engine thinks.
                Some(_) => continue,
            }
            let Some(m) = words.next() else {
                return Err(self.nonsense(&line, "a move after 'bestmove'"));
            };
            let pos = game.position();
            let legal = game.legal_moves();
            if m == "0000" || m == "(none)" {
                if game.is_over() {
                    return Ok(None);
                }
                return Err(self.illegal(m, game));
            }
            let mut chars = m.chars();
            let (Some(c), None) = (chars.next(), chars.next()) else {
                return Err(self.illegal(m, game));
            };
            let action = (0..6).find(|&a| move_letter(pos.side, a) == c && legal & (1 << a) != 0);
            return match action {
                Some(a) => Ok(Some(a as u8)),
                None => Err(self.illegal(m, game)),
            };
        }
    }

    /// Sends `quit` and waits briefly for the process to end (it is killed otherwise).
    pub fn quit(mut self) {
        let _ = self.send("quit");
        let deadline = Instant::now() + Duration::from_millis(500);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    /// `isready`, then wait for `readyok`.
    fn sync(&mut self) -> Result<(), EngineError> {
        self.send("isready")?;
        let deadline = Instant::now() + self.timeout;
        loop {
            let line = self.next_line("readyok", deadline, self.timeout)?;
            if line.trim() == "readyok" {
                return Ok(());
            }
        }
    }

    fn send(&mut self, line: &str) -> Result<(), EngineError> {
        let r = writeln!(self.stdin, "{line}").and_then(|_| self.stdin.flush());
        r.map_err(|source| {
            // A closed pipe means the process is gone: say so, rather than leave the
            // caller to tell a dead engine from an unwritable one by timing.
            if source.kind() == std::io::ErrorKind::BrokenPipe {
                EngineError::Exited {
                    command: self.command.clone(),
                    waiting_for: line.to_string(),
                }
            } else {
                EngineError::Send {
                    command: self.command.clone(),
                    line: line.to_string(),
                    source,
                }
            }
        })
    }

    fn next_line(
        &mut self,
        waiting_for: &str,
        deadline: Instant,
        allowed: Duration,
    ) -> Result<String, EngineError> {
        let left = deadline.saturating_duration_since(Instant::now());
        match self.lines.recv_timeout(left) {
            Ok(l) => Ok(l),
            Err(RecvTimeoutError::Timeout) => Err(EngineError::Timeout {
                command: self.command.clone(),
                waiting_for: waiting_for.to_string(),
                ms: allowed.as_millis(),
            }),
            Err(RecvTimeoutError::Disconnected) => Err(EngineError::Exited {
                command: self.command.clone(),
                waiting_for: waiting_for.to_string(),
            }),
        }
    }

    fn nonsense(&self, line: &str, expected: &str) -> EngineError {
        EngineError::Nonsense {
            command: self.command.clone(),
            line: line.to_string(),
            expected: expected.to_string(),
        }
    }

    fn illegal(&self, letter: &str, game: &Game) -> EngineError {
        let p = game.position();
        EngineError::IllegalMove {
            command: self.command.clone(),
            letter: letter.to_string(),
            fen: p.to_string(),
            legal: if game.is_over() {
                "none: the game is over".into()
            } else {
                mask_letters(p.side, game.legal_moves())
            },
        }
    }
}

impl Drop for EngineProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
