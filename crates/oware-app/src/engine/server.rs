//! The engine side of the protocol: reads commands, keeps the position, runs searches.

use std::io::{self, BufRead, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::{EngineOption, EngineSearcher};
use oware_core::game::{Game, Position, Preset, RuleSet, Side};
use oware_core::search::{AlphaBeta, Limits, SearchResult};

/// Search time for a `go` with no limit at all.
const DEFAULT_MOVETIME: Duration = Duration::from_secs(1);
/// Moves assumed left when `go wtime …` gives no `movestogo`.
const DEFAULT_MOVES_TO_GO: u64 = 30;
/// Kept in hand on the clock, for the transport.
const CLOCK_MARGIN_MS: u64 = 50;

/// The alpha-beta engine as an [`EngineSearcher`]. Option: `Hash` (table MiB).
pub struct AlphaBetaSearcher {
    search: AlphaBeta,
    tt_mb: usize,
}

impl AlphaBetaSearcher {
    /// An alpha-beta searcher with a table of `tt_mb` MiB.
    pub fn new(rules: RuleSet, tt_mb: usize) -> AlphaBetaSearcher {
        AlphaBetaSearcher {
            search: AlphaBeta::new(rules, tt_mb),
            tt_mb,
        }
    }

    /// Probes the endgame tables `tb` below the root of every search.
    pub fn with_tablebase(mut self, tb: Option<Arc<oware_core::tablebase::Tablebase>>) -> Self {
        self.search.set_tablebase(tb);
        self
    }
}

impl EngineSearcher for AlphaBetaSearcher {
    fn name(&self) -> String {
        format!("oware-zero alphabeta {}", env!("CARGO_PKG_VERSION"))
    }

    fn options(&self) -> Vec<EngineOption> {
        vec![EngineOption {
            name: "Hash".into(),
            spec: format!("type spin default {} min 1 max 65536", self.tt_mb),
        }]
    }

    fn set_option(&mut self, name: &str, value: &str) -> Result<(), String> {
        if !name.eq_ignore_ascii_case("hash") {
            return Err(format!("unknown option '{name}'"));
        }
        match value.parse::<usize>() {
            Ok(mb) if (1..=65_536).contains(&mb) => {
                self.tt_mb = mb;
                self.search.resize_table(mb);
                Ok(())
            }
            _ => Err(format!(
                "option Hash: '{value}' is not a size from 1 to 65536 MiB"
            )),
        }
    }

    fn new_game(&mut self) {
        // Every search already starts from an empty table (deterministic); nothing to drop.
    }

    fn search(
        &mut self,
        game: &Game,
        limits: &Limits,
        stop: &AtomicBool,
        info: &mut dyn FnMut(&SearchResult),
    ) -> SearchResult {
        self.search.search_with(game, limits, Some(stop), info)
    }
}

/// What `go` asked for, before the clock is turned into a time.
#[derive(Debug, Default)]
pub struct Go {
    depth: Option<u32>,
    nodes: Option<u64>,
    movetime: Option<u64>,
    clock: [Option<u64>; 2],
    inc: [Option<u64>; 2],
    movestogo: Option<u64>,
    infinite: bool,
    /// What was not taken as written, one `info string` text each ("error: …" for a
    /// word that was ignored).
    pub notes: Vec<String>,
}

/// Reads the words after `go`. It never fails: a GUI that sent `go` waits for a
/// `bestmove`, so a word that cannot be used is ignored and said in `notes`, and the
/// search runs on the rest; a depth beyond `max_depth`, the deepest the searcher takes
/// ([`EngineSearcher::max_depth`]), searches to it.
pub fn parse_go(words: &[&str], max_depth: u32) -> Go {
    let mut g = Go::default();
    let mut i = 0;
    while i < words.len() {
        let w = words[i];
        if w == "infinite" {
            g.infinite = true;
            i += 1;
            continue;
        }
        if w == "ponder" {
            i += 1;
            continue;
        }
        let known = [
            "depth",
            "nodes",
            "movetime",
            "wtime",
            "btime",
            "winc",
            "binc",
            "movestogo",
        ];
        let num = words.get(i + 1).map(|v| (v, v.parse::<u64>()));
        if !known.contains(&w) {
            g.notes
                .push(format!("error: go: unknown word '{w}' ignored"));
            // Its number, if one follows, goes with it.
            i += if matches!(num, Some((_, Ok(_)))) {
                2
            } else {
                1
            };
            continue;
        }
        let num = match num {
            None => {
                g.notes
                    .push(format!("error: go: '{w}' needs a number after it; ignored"));
                i += 1;
                continue;
            }
            Some((v, Err(_))) => {
                g.notes.push(format!(
                    "error: go: '{w} {v}': expected a non-negative integer; ignored"
                ));
                i += 2;
                continue;
            }
            Some((_, Ok(n))) => n,
        };
        match w {
            "depth" => {
                let d = num.clamp(1, u64::from(max_depth)) as u32;
                if u64::from(d) != num {
                    g.notes.push(format!(
                        "go: depth {num} is outside 1 to {max_depth}: searching depth {d}"
                    ));
                }
                g.depth = Some(d)
            }
            "nodes" => g.nodes = Some(num.max(1)),
            "movetime" => g.movetime = Some(num.max(1)),
            "wtime" => g.clock[0] = Some(num),
            "btime" => g.clock[1] = Some(num),
            "winc" => g.inc[0] = Some(num),
            "binc" => g.inc[1] = Some(num),
            _ => g.movestogo = Some(num.max(1)),
        }
        i += 2;
    }
    g
}

impl Go {
    /// The search limits for `side` to move.
    fn limits(&self, side: Side) -> Limits {
        let mut movetime = self.movetime;
        let mut soft = None;
        if movetime.is_none()
            && let Some(left) = self.clock[side.index()]
        {
            let (target, cap) = clock_times(
                left,
                self.inc[side.index()].unwrap_or(0),
                self.movestogo.unwrap_or(DEFAULT_MOVES_TO_GO),
            );
            soft = Some(Duration::from_millis(target));
            movetime = Some(cap);
        }
        let mut limits = Limits {
            depth: self.depth,
            nodes: self.nodes,
            movetime: movetime.map(Duration::from_millis),
            soft,
        };
        if !self.infinite && limits == Limits::default() {
            limits.movetime = Some(DEFAULT_MOVETIME);
        }
        limits
    }
}

/// A move's target and hard limit, ms, with `left` ms on the clock, `inc` ms added per
/// move and `to_go` moves to the next control: the target is the time left shared over
/// the moves to go plus three quarters of the increment; the cap, never past the clock
/// less the transport margin, is a quarter of the time left plus the increment's share
/// (at least the target). Both are at least 1 ms.
pub fn clock_times(left: u64, inc: u64, to_go: u64) -> (u64, u64) {
    let usable = left.saturating_sub(CLOCK_MARGIN_MS).max(1);
    let target = (left / to_go.max(1) + inc * 3 / 4).clamp(1, usable);
    let cap = (left / 4 + inc * 3 / 4).max(target).min(usable);
    (target, cap)
}

type Out<W> = Arc<Mutex<W>>;

fn say<W: Write>(out: &Out<W>, line: &str) {
    // A closed output is the GUI's business; the loop ends when its input does.
    if let Ok(mut w) = out.lock() {
        let _ = writeln!(w, "{line}");
        let _ = w.flush();
    }
}

fn info_line(r: &SearchResult) -> String {
    format!(
        "info depth {} score cp {} pv {} nodes {} nps {} time {}",
        r.depth,
        r.score_cp,
        r.pv,
        r.nodes,
        r.nps,
        r.elapsed.as_millis()
    )
}

/// A search running on its thread; joining gives the searcher back.
struct Running<S> {
    handle: JoinHandle<S>,
    stop: Arc<AtomicBool>,
    infinite: bool,
    started: Instant,
}

/// The loop's state between commands.
struct Server<S, W: Write> {
    searcher: Option<S>,
    running: Option<Running<S>>,
    rules: RuleSet,
    game: Game,
    debug: bool,
    out: Out<W>,
}

/// The longest command line the engine reads (a game's whole move list fits many times);
/// a longer one is skipped to its end with an error, so memory stays bounded.
pub const MAX_LINE: usize = 256 * 1024;

/// Reads the next line of `input` into `buf` (without its line end), keeping at most
/// `max` bytes: `None` at the end of input, `Some(true)` when the line was longer than
/// `max` (its bytes are consumed and dropped), `Some(false)` otherwise.
pub fn read_line_bounded<R: BufRead>(
    input: &mut R,
    buf: &mut Vec<u8>,
    max: usize,
) -> io::Result<Option<bool>> {
    buf.clear();
    let mut seen = false;
    let mut too_long = false;
    loop {
        let chunk = match input.fill_buf() {
            Ok(c) => c,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if chunk.is_empty() {
            return Ok(seen.then_some(too_long));
        }
        seen = true;
        let (part, done) = match chunk.iter().position(|&b| b == b'\n') {
            Some(i) => (&chunk[..i], Some(i + 1)),
            None => (chunk, None),
        };
        if !too_long {
            if buf.len() + part.len() > max {
                too_long = true;
                buf.clear();
            } else {
                buf.extend_from_slice(part);
            }
        }
        let used = done.unwrap_or(chunk.len());
        input.consume(used);
        if done.is_some() {
            if buf.last() == Some(&b'\r') {
                buf.pop();
            }
            return Ok(Some(too_long));
        }
    }
}

/// Runs the protocol until `quit` or the end of `input`: commands from `input`, answers
/// to `output` (flushed after every line). `rules` is the rule set until the GUI sets the
/// `Rules` option. Returns an error only if `input` cannot be read.
pub fn serve<S, R, W>(searcher: S, rules: RuleSet, input: R, output: W) -> io::Result<()>
where
    S: EngineSearcher,
    R: BufRead,
    W: Write + Send + 'static,
{
    let mut s = Server {
        searcher: Some(searcher),
        running: None,
        rules,
        game: Game::new(rules, Position::start()),
        debug: false,
        out: Arc::new(Mutex::new(output)),
    };
    let mut input = input;
    let mut buf = Vec::with_capacity(256);
    loop {
        let too_long = match read_line_bounded(&mut input, &mut buf, MAX_LINE) {
            Ok(None) => break,
            Ok(Some(too_long)) => too_long,
            Err(e) => {
                s.finish_search();
                return Err(e);
            }
        };
        if too_long {
            s.error(&format!("a line longer than {MAX_LINE} bytes was ignored"));
            continue;
        }
        let Ok(line) = std::str::from_utf8(&buf) else {
            s.error("a line is not valid UTF-8");
            continue;
        };
        if !s.command(line.trim()) {
            s.finish_search();
            return Ok(());
        }
    }
    // The input ended without `quit` (`printf '…go depth 12\n' | oware engine`): a
    // search with limits may finish and answer; an infinite one is stopped as `stop`
    // would stop it, but not before it has searched as long as a `go` without limits
    // does, so that it answers a searched move.
    if let Some(r) = &s.running
        && r.infinite
    {
        std::thread::sleep(DEFAULT_MOVETIME.saturating_sub(r.started.elapsed()));
    }
    if let Some(r) = s.running.take_if(|r| !r.infinite)
        && let Ok(searcher) = r.handle.join()
    {
        s.searcher = Some(searcher);
    }
    s.finish_search();
    Ok(())
}

impl<S: EngineSearcher, W: Write + Send + 'static> Server<S, W> {
    fn say(&self, line: &str) {
        say(&self.out, line);
    }

    fn error(&self, msg: &str) {
        self.say(&format!("info string error: {msg}"));
    }

    /// Stops a running search (it answers its `bestmove`) and takes the searcher back.
    fn finish_search(&mut self) {
        if let Some(r) = self.running.take() {
            r.stop.store(true, Ordering::Relaxed);
            match r.handle.join() {
                Ok(searcher) => self.searcher = Some(searcher),
                Err(_) => self.error("the search thread failed; the engine cannot search again"),
            }
        }
    }

    /// Handles one line; `false` means quit.
    fn command(&mut self, line: &str) -> bool {
        let words: Vec<&str> = line.split_whitespace().collect();
        let Some(&cmd) = words.first() else {
            return true;
        };
        // A search stops before what could change what it works on, and on `stop` and
        // `quit`; any other line (`isready`, `uci`, `debug`, a stray or garbled line)
        // leaves it searching.
        if matches!(
            cmd,
            "ucinewgame" | "setoption" | "position" | "go" | "stop" | "quit"
        ) {
            self.finish_search();
        }
        match cmd {
            "uci" => self.uci(),
            "isready" => self.say("readyok"),
            "ucinewgame" => {
                self.game = Game::new(self.rules, Position::start());
                if let Some(s) = self.searcher.as_mut() {
                    s.new_game();
                }
            }
            "setoption" => self.setoption(&words[1..]),
            "position" => match parse_position(self.rules, &words[1..]) {
                Ok(g) => {
                    self.game = g;
                    if self.debug {
                        self.say(&format!("info string position {}", self.game.position()));
                    }
                }
                Err(e) => self.error(&format!("{e}; the position is unchanged")),
            },
            "go" => self.go(&words[1..]),
            "stop" => {}
            "quit" => return false,
            "debug" => match words.get(1) {
                Some(&"on") => self.debug = true,
                Some(&"off") => self.debug = false,
                _ => self.error("debug: expected 'on' or 'off'"),
            },
            other => self.error(&format!("unknown command '{other}'")),
        }
        true
    }

    fn uci(&self) {
        let Some(s) = self.searcher.as_ref() else {
            return self.error("the engine cannot search any more");
        };
        self.say(&format!("id name {}", s.name()));
        self.say("id author the oware-zero authors");
        let vars: String = Preset::ALL
            .iter()
            .map(|p| format!(" var {}", p.name()))
            .collect();
        self.say(&format!(
            "option name Rules type combo default {}{vars}",
            self.rules.name()
        ));
        for o in s.options() {
            self.say(&format!("option name {} {}", o.name, o.spec));
        }
        self.say("uciok");
    }

    fn setoption(&mut self, words: &[&str]) {
        // setoption name NAME [value VALUE]; names and values may hold spaces.
        if words.first() != Some(&"name") {
            return self.error("setoption: expected 'setoption name NAME value VALUE'");
        }
        let rest = &words[1..];
        let at = rest.iter().position(|w| *w == "value");
        let (name, value) = match at {
            Some(i) => (rest[..i].join(" "), rest[i + 1..].join(" ")),
            None => (rest.join(" "), String::new()),
        };
        if name.is_empty() {
            return self.error("setoption: the option name is missing");
        }
        if name.eq_ignore_ascii_case("rules") {
            match value.parse::<RuleSet>() {
                Ok(r) => {
                    self.rules = r;
                    self.game = Game::new(r, Position::start());
                }
                Err(e) => self.error(&format!("setoption Rules: {e}")),
            }
            return;
        }
        let Some(s) = self.searcher.as_mut() else {
            return self.error("the engine cannot search any more");
        };
        if !s
            .options()
            .iter()
            .any(|o| o.name.eq_ignore_ascii_case(&name))
        {
            return self.say(&format!("info string unknown option '{name}' ignored"));
        }
        if let Err(e) = s.set_option(&name, &value) {
            self.error(&format!("setoption: {e}"));
        }
    }

    fn go(&mut self, words: &[&str]) {
        // Every `go` is answered by a `bestmove`: a GUI waits for one.
        let Some(mut searcher) = self.searcher.take() else {
            self.error("the engine cannot search any more");
            return self.say("bestmove 0000");
        };
        let go = parse_go(words, searcher.max_depth());
        for n in &go.notes {
            self.say(&format!("info string {n}"));
        }
        if self.game.is_over() {
            self.searcher = Some(searcher);
            return self.say("bestmove 0000");
        }
        let limits = go.limits(self.game.position().side);
        let infinite = go.infinite;
        let stop = Arc::new(AtomicBool::new(false));
        let game = self.game.clone();
        let out = self.out.clone();
        let flag = stop.clone();
        let handle = std::thread::spawn(move || {
            let mut info = |r: &SearchResult| say(&out, &info_line(r));
            let r = searcher.search(&game, &limits, &flag, &mut info);
            if infinite {
                // `go infinite` answers only after `stop`, whatever the search did.
                while !flag.load(Ordering::Relaxed) {
                    std::thread::sleep(Duration::from_millis(1));
                }
            }
            let best = r
                .best_letter()
                .map_or_else(|| "0000".to_string(), |c| c.to_string());
            say(&out, &format!("bestmove {best}"));
            searcher
        });
        self.running = Some(Running {
            handle,
            stop,
            infinite,
            started: Instant::now(),
        });
    }
}

/// `position startpos|fen FEN [moves M…]` → a game, or what was wrong.
pub fn parse_position(rules: RuleSet, words: &[&str]) -> Result<Game, String> {
    let (start, rest) = match words.first() {
        Some(&"startpos") => (Position::start(), &words[1..]),
        Some(&"fen") => {
            let fen = words
                .get(1)
                .ok_or("position fen: the position text is missing")?;
            let p = fen
                .parse::<Position>()
                .map_err(|e| format!("position fen: {e}"))?;
            (p, &words[2..])
        }
        _ => return Err("position: expected 'startpos' or 'fen FEN'".into()),
    };
    let mut game = Game::new(rules, start);
    match rest.first() {
        None => {}
        Some(&"moves") => {
            let text = rest[1..].join(" ");
            game.play_text(&text).map_err(|e| {
                format!(
                    "position: {}: {e}",
                    oware_core::game::after_moves(game.moves().len())
                )
            })?;
        }
        Some(other) => return Err(format!("position: unexpected '{other}', expected 'moves'")),
    }
    Ok(game)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_go(words: &[&str]) -> Go {
        super::parse_go(words, oware_core::search::alphabeta::MAX_DEPTH)
    }

    #[test]
    fn go_words() {
        let g = parse_go(&["wtime", "10000", "btime", "3000", "binc", "100"]);
        assert!(g.notes.is_empty(), "{:?}", g.notes);
        // South: 10 000 ms over 30 moves to go; the cap is a quarter of the clock.
        let ms = Duration::from_millis;
        assert_eq!(g.limits(Side::South).soft, Some(ms(333)));
        assert_eq!(g.limits(Side::South).movetime, Some(ms(2500)));
        // North: 3 000 / 30 + ¾ of the 100 ms increment; cap 750 + 75.
        assert_eq!(g.limits(Side::North).soft, Some(ms(175)));
        assert_eq!(g.limits(Side::North).movetime, Some(ms(825)));
        // A word that cannot be used is said and ignored; the rest still counts.
        let g = parse_go(&["depth"]);
        assert!(g.notes[0].contains("needs a number"), "{:?}", g.notes);
        assert_eq!(g.limits(Side::South).movetime, Some(DEFAULT_MOVETIME));
        let g = parse_go(&["depth", "x", "nodes", "7"]);
        assert!(g.notes[0].contains("'depth x'"), "{:?}", g.notes);
        assert_eq!(g.limits(Side::South).nodes, Some(7));
        assert_eq!(g.limits(Side::South).depth, None);
        let g = parse_go(&["sideways", "1", "depth", "3"]);
        assert!(g.notes[0].contains("'sideways'"), "{:?}", g.notes);
        assert_eq!(g.limits(Side::South).depth, Some(3));
        // Depths outside 1..=64 search the nearest depth there is, and say so.
        for (asked, searched) in [(99, 64), (0, 1), (64, 64)] {
            let g = parse_go(&["depth", &asked.to_string()]);
            assert_eq!(g.limits(Side::South).depth, Some(searched));
            assert_eq!(
                g.notes.len(),
                usize::from(asked != searched),
                "{:?}",
                g.notes
            );
        }
        // A searcher that takes deeper searches (the network's) searches what was asked.
        let g = super::parse_go(&["depth", "99"], 10_000);
        assert_eq!((g.limits(Side::South).depth, g.notes.len()), (Some(99), 0));
        let g = parse_go(&["infinite"]);
        assert_eq!(g.limits(Side::South), Limits::default());
        let g = parse_go(&[]);
        assert_eq!(g.limits(Side::South).movetime, Some(DEFAULT_MOVETIME));
    }

    #[test]
    fn clock_times_never_pass_the_clock() {
        // Tiny clocks: never more than the clock less the margin, never 0.
        for left in [0, 1, 10, 49, 50, 51, 60, 200, 1000, 60_000] {
            for inc in [0, 10, 500] {
                for to_go in [1, 2, 30] {
                    let (t, cap) = clock_times(left, inc, to_go);
                    assert!(t >= 1 && t <= cap, "{left} {inc} {to_go}: {t} {cap}");
                    assert!(cap <= left.saturating_sub(CLOCK_MARGIN_MS).max(1));
                }
            }
        }
        // One move to go may use nearly all of the clock but the margin.
        assert_eq!(clock_times(1000, 0, 1), (950, 950));
        assert_eq!(clock_times(60_000, 500, 30), (2375, 15_375));
    }

    #[test]
    fn positions() {
        let r = RuleSet::abapa();
        let g = parse_position(r, &["startpos", "moves", "FfBe"]).unwrap();
        assert_eq!(g.move_text(), "FfBe");
        let g = parse_position(r, &["startpos", "moves", "F", "f", "B"]).unwrap();
        assert_eq!(g.move_text(), "FfB");
        let e = parse_position(r, &["startpos", "moves", "FF"]).unwrap_err();
        assert!(e.contains("after 1 move: "), "{e}");
        let e = parse_position(r, &["fen", "1-2-3"]).unwrap_err();
        assert!(e.contains("15 fields"), "{e}");
        assert!(parse_position(r, &["sideways"]).is_err());
    }

    /// Everything an alpha-beta engine (abapa) answers to `input`.
    fn session(input: &[u8]) -> String {
        let out = Arc::new(Mutex::new(Vec::<u8>::new()));
        struct Shared(Arc<Mutex<Vec<u8>>>);
        impl Write for Shared {
            fn write(&mut self, b: &[u8]) -> io::Result<usize> {
                self.0.lock().unwrap().write(b)
            }
            fn flush(&mut self) -> io::Result<()> {
                Ok(())
            }
        }
        let s = AlphaBetaSearcher::new(RuleSet::abapa(), 1);
        serve(s, RuleSet::abapa(), input, Shared(out.clone())).unwrap();
        String::from_utf8(out.lock().unwrap().clone()).unwrap()
    }

    #[test]
    fn a_session_in_memory() {
        let input = "uci\nisready\nposition startpos moves FfQ\nposition fen 0-0-8-0-0-1-1-1-1-1-2-3-15-15-S\ngo depth 3\nisready\nquit\n";
        let text = session(input.as_bytes());
        assert!(
            text.contains("uciok\nreadyok\ninfo string error: "),
            "{text}"
        );
        assert!(text.contains("bestmove C\n"), "{text}");
    }

    #[test]
    fn every_go_is_answered_by_a_bestmove() {
        // A GUI waits for `bestmove` after `go`: a depth out of range or a word that
        // cannot be used is said, and the search still answers. (The position is
        // docs/rules.md example 4, where C wins at once.)
        let fen = "position fen 0-0-8-0-0-1-1-1-1-1-2-3-15-15-S\n";
        for go in [
            "go depth 99",
            "go depth 0",
            "go depth x",
            "go sideways 1",
            "go nodes",
        ] {
            let text = session(format!("{fen}{go}\nquit\n").as_bytes());
            assert!(text.contains("info string "), "{go}: {text}");
            assert!(text.ends_with("bestmove C\n"), "{go}: {text}");
        }
        let text = session(format!("{fen}go depth 99\nquit\n").as_bytes());
        assert!(text.contains("searching depth 64"), "{text}");
    }

    #[test]
    fn lines_are_read_with_a_bound() {
        // A tiny buffer, so lines straddle refills.
        let text = b"short\r\n0123456789abc\nok\nlast";
        let mut r = io::BufReader::with_capacity(4, &text[..]);
        let mut buf = Vec::new();
        let mut got = Vec::new();
        while let Some(long) = read_line_bounded(&mut r, &mut buf, 8).unwrap() {
            got.push((String::from_utf8(buf.clone()).unwrap(), long));
        }
        assert_eq!(
            got,
            vec![
                ("short".to_string(), false),
                (String::new(), true),
                ("ok".to_string(), false),
                ("last".to_string(), false),
            ]
        );
    }

    #[test]
    fn hostile_input_keeps_the_position() {
        // A position, then a line of several megabytes, binary garbage, a thousand junk
        // commands; the engine keeps answering and still has the position it was given.
        let mut input = Vec::new();
        input.extend_from_slice(b"position fen 0-0-0-1-0-0-4-4-4-4-4-4-20-3-S\n");
        input.extend(std::iter::repeat_n(b'x', 3 << 20));
        input.extend_from_slice(b"\n\xff\xfe\x00garbage\x80\n");
        for k in 0..1000u32 {
            input
                .extend_from_slice(format!("junk{k} {}\n", "y".repeat(k as usize % 50)).as_bytes());
            input.extend_from_slice(b"isready\n");
        }
        input.extend_from_slice(b"go depth 1\nquit\n");
        let text = session(&input);
        assert!(
            text.contains(&format!("longer than {MAX_LINE} bytes")),
            "{}",
            &text[..200]
        );
        assert!(text.contains("not valid UTF-8"));
        assert_eq!(text.matches("readyok").count(), 1000);
        // The position was kept: South's only legal move there is D.
        assert!(
            text.contains("bestmove D\n"),
            "{}",
            &text[text.len() - 300..]
        );
    }
}
