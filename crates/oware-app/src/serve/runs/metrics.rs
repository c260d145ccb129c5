//! A run's `metrics.csv` read for watching: leniently (a row that cannot be read is
//! skipped and counted, a column the file lacks is absent, a column it has that this
//! program does not know is kept), as columns of numbers, with the columns a watcher
//! wants that the file does not hold (games so far, games per second).

use std::io::Read;
use std::path::Path;

/// The largest metrics file read (a run of 100 000 iterations is about 30 MB).
pub const MAX_BYTES: u64 = 64 << 20;

/// A metrics file as columns.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Metrics {
    /// The numeric columns in the file's order, then the derived ones
    /// (`total_games`, `games_per_second`); `iteration` first.
    pub names: Vec<String>,
    /// `columns[c][r]`: column `c` of row `r`; `None` where empty, not a number, or not
    /// finite (a loss before the first gradient step is `NaN`).
    pub columns: Vec<Vec<Option<f64>>>,
    /// The evaluation's opponent of each row (`eval_opponent`), where it has one.
    pub opponents: Vec<Option<String>>,
    /// Rows skipped: too few fields (a cut-off last line), no iteration number, or an
    /// iteration not after the one before.
    pub bad_rows: usize,
}

impl Metrics {
    /// Rows read.
    pub fn rows(&self) -> usize {
        self.opponents.len()
    }

    /// The column `name`, if the file has it.
    pub fn column(&self, name: &str) -> Option<&[Option<f64>]> {
        let i = self.names.iter().position(|n| n == name)?;
        Some(&self.columns[i])
    }

    /// The last value of column `name`.
    pub fn last(&self, name: &str) -> Option<f64> {
        self.column(name)?.last().copied().flatten()
    }
}

/// Reads `path` (gzipped when its name ends in `.gz`); an error is one line.
pub fn read(path: &Path) -> Result<Metrics, String> {
    let file = std::fs::File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut bytes = Vec::new();
    let gz = path.extension().is_some_and(|x| x == "gz");
    let r = if gz {
        flate2::read::GzDecoder::new(file)
            .take(MAX_BYTES + 1)
            .read_to_end(&mut bytes)
    } else {
        file.take(MAX_BYTES + 1).read_to_end(&mut bytes)
    };
    r.map_err(|e| format!("{}: {e}", path.display()))?;
    if bytes.len() as u64 > MAX_BYTES {
        return Err(format!(
            "{}: larger than {} MB, not read",
            path.display(),
            MAX_BYTES >> 20
        ));
    }
    parse(&bytes).map_err(|e| format!("{}: {e}", path.display()))
}

/// Parses a metrics file's text.
pub fn parse(bytes: &[u8]) -> Result<Metrics, String> {
    let mut r = csv::ReaderBuilder::new().flexible(true).from_reader(bytes);
    let header: Vec<String> = match r.headers() {
        Ok(h) => h.iter().map(|s| s.trim().to_string()).collect(),
        Err(e) => return Err(format!("its header cannot be read: {e}")),
    };
    if header.first().map(String::as_str) != Some("iteration") {
        if header.iter().all(|h| h.is_empty()) {
            return Ok(Metrics::default());
        }
        return Err("not a metrics file: its first column is not `iteration`".into());
    }
    let opp = header.iter().position(|h| h == "eval_opponent");
    let numeric: Vec<usize> = (0..header.len()).filter(|&i| Some(i) != opp).collect();
    let mut m = Metrics {
        names: numeric.iter().map(|&i| header[i].clone()).collect(),
        columns: vec![Vec::new(); numeric.len()],
        ..Metrics::default()
    };
    let mut previous = 0.0;
    for rec in r.records() {
        let Ok(rec) = rec else {
            m.bad_rows += 1;
            continue;
        };
        let iteration = rec.get(0).and_then(|s| s.trim().parse::<u32>().ok());
        let Some(it) = iteration.filter(|&i| i as f64 > previous) else {
            m.bad_rows += 1;
            continue;
        };
        if rec.len() != header.len() {
            m.bad_rows += 1;
            continue;
        }
        previous = it as f64;
        for (c, &i) in numeric.iter().enumerate() {
            let v = rec[i].trim().parse::<f64>().ok().filter(|v| v.is_finite());
            m.columns[c].push(v);
        }
        m.opponents.push(
            opp.map(|i| rec[i].trim().to_string())
                .filter(|s| !s.is_empty()),
        );
    }
    derive(&mut m);
    Ok(m)
}

/// Adds `total_games` (games so far) and, with the run clock, `games_per_second` (this
/// iteration's games over its share of the run clock).
fn derive(m: &mut Metrics) {
    let Some(games) = m.column("games") else {
        return;
    };
    let totals: Vec<Option<f64>> = games
        .iter()
        .scan(0.0, |total, g| {
            *total += g.unwrap_or(0.0);
            Some(Some(*total))
        })
        .collect();
    let speed = m.column("wall_seconds").map(|wall| {
        let mut before = 0.0;
        games
            .iter()
            .zip(wall)
            .map(|(g, w)| match (g, w) {
                (Some(g), Some(w)) if *w > before => {
                    let s = g / (w - before);
                    before = *w;
                    Some(s)
                }
                _ => None,
            })
            .collect::<Vec<_>>()
    });
    m.names.push("total_games".into());
    m.columns.push(totals);
    if let Some(speed) = speed {
        m.names.push("games_per_second".into());
        m.columns.push(speed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEAD: &str = "iteration,wall_seconds,games,policy_loss,eval_opponent,eval_elo\n";

    #[test]
    fn reads_columns_and_derives_games() {
        let text = format!("{HEAD}1,10,100,NaN,,\n2,30,100,1.5,alphabeta:depth=4,-20.5\n");
        let m = parse(text.as_bytes()).unwrap();
        assert_eq!(m.rows(), 2);
        assert_eq!(m.column("policy_loss").unwrap(), [None, Some(1.5)]);
        assert_eq!(m.column("eval_elo").unwrap(), [None, Some(-20.5)]);
        assert_eq!(m.opponents, [None, Some("alphabeta:depth=4".into())]);
        assert_eq!(m.column("total_games").unwrap(), [Some(100.0), Some(200.0)]);
        assert_eq!(
            m.column("games_per_second").unwrap(),
            [Some(10.0), Some(5.0)]
        );
        assert_eq!(m.bad_rows, 0);
    }

    #[test]
    fn damaged_rows_are_skipped_and_counted() {
        // A cut-off last line, a row of rubbish, an iteration out of order, a value that
        // is not a number (kept as missing).
        let text = format!("{HEAD}1,10,100,2,,\nxx,yy\n3,30,100,zz,,\n2,40,1,1,,\n4,50,1");
        let m = parse(text.as_bytes()).unwrap();
        assert_eq!(m.column("iteration").unwrap(), [Some(1.0), Some(3.0)]);
        assert_eq!(m.column("policy_loss").unwrap(), [Some(2.0), None]);
        assert_eq!(m.bad_rows, 3);
    }

    #[test]
    fn an_older_file_has_fewer_columns_and_an_empty_one_none() {
        let m = parse(b"iteration,wall_seconds\n1,5\n").unwrap();
        assert_eq!(m.names, ["iteration", "wall_seconds"]);
        assert!(m.column("eval_elo").is_none());
        assert_eq!(parse(b"").unwrap().rows(), 0);
        assert!(
            parse(b"a,b\n1,2\n")
                .unwrap_err()
                .contains("not a metrics file")
        );
    }

    #[test]
    fn a_gzipped_file_reads_as_the_plain_one() {
        use std::io::Write;
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("metrics.csv.gz");
        let mut z = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        z.write_all(b"iteration,games\n1,4\n").unwrap();
        std::fs::write(&p, z.finish().unwrap()).unwrap();
        assert_eq!(read(&p).unwrap().last("total_games"), Some(4.0));
    }
}
