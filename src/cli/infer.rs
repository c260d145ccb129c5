//! `oware infer`: the network's raw answer for one position.

use std::path::PathBuf;

use anyhow::{Context, Result};
use serde_json::json;

use oware_core::game::mask_letters;
use oware_net::net::checkpoint::{Checkpoint, resolve_model_path};
use oware_net::net::fast::HEAD_DIM;
use oware_net::net::model::{POLICY_DIM, STORE_DIFF_SCALE, WDL_DIM, masked_softmax, wdl_value};
use oware_net::net::{DeviceKind, InferencePath, NetEvaluator};

/// Arguments of `oware infer`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// A checkpoint directory, or a run directory (meaning the checkpoint named in its
    /// `checkpoints/latest`).
    /// Default: the shipped network, checkpoints/oware-abapa.
    #[arg(long, default_value_os_t = oware_net::net::checkpoint::default_model_path(), hide_default_value = true)]
    model: PathBuf,
    /// Position (FEN, docs/notation.md); default: the start.
    #[arg(long)]
    fen: Option<String>,
    /// Moves to play first (`FfBe` or "F f B e").
    #[arg(long)]
    moves: Option<String>,
    /// Rule set for the legal moves (default: the checkpoint's).
    #[arg(long)]
    rules: Option<String>,
    /// Forward implementation: fast (plain Rust) or burn (the reference).
    #[arg(long, default_value = "fast")]
    path: String,
    /// Device for the burn path: cpu, or wgpu when compiled in.
    #[arg(long, default_value = "cpu")]
    device: String,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

pub fn run(a: Args) -> Result<()> {
    let dir = resolve_model_path(&a.model)?;
    let path = match a.path.as_str() {
        "fast" => InferencePath::Fast,
        "burn" => InferencePath::Burn,
        other => anyhow::bail!("--path '{other}': expected fast or burn"),
    };
    let kind = a.device.parse::<DeviceKind>()?;
    let device = kind.device()?;
    // The device in words: for wgpu, the adapter it runs on (e.g. llvmpipe).
    let device_name = kind.describe()?;
    let ck = Checkpoint::load(&dir, &device)?;
    let rules = match &a.rules {
        Some(r) => super::parse_rules(r)?,
        None => ck.manifest.rule_set()?,
    };
    let game = super::game_from(rules, a.fen.as_deref(), a.moves.as_deref())?;
    let p = *game.position();
    let cfg = ck.manifest.model.clone();
    let mut input = vec![0.0; cfg.input_dim()];
    cfg.encoding.encode(&p, &mut input);
    let mut e = NetEvaluator::new(&ck.model, &cfg)?.with_path(path);
    let raw = e
        .forward_positions(std::slice::from_ref(&p))
        .context("running the network")?;
    debug_assert_eq!(raw.len(), HEAD_DIM);
    let mut logits = [0.0f32; POLICY_DIM];
    logits.copy_from_slice(&raw[..POLICY_DIM]);
    let mut wdl_logits = [0.0f32; WDL_DIM];
    wdl_logits.copy_from_slice(&raw[POLICY_DIM..POLICY_DIM + WDL_DIM]);
    let store_diff = raw[HEAD_DIM - 1];
    let (wdl, value) = wdl_value(&wdl_logits);
    let legal = p.legal_moves(rules);
    let priors = masked_softmax(&logits, legal);
    if a.json {
        let v = json!({
            "checkpoint": dir.display().to_string(),
            "device": device_name,
            "position": p.to_string(),
            "encoding": cfg.encoding.name(),
            "input": input,
            "policy_logits": logits,
            "legal_moves": mask_letters(p.side, legal),
            "priors": priors,
            "wdl_logits": wdl_logits,
            "wdl": wdl,
            "value": value,
            "store_diff": store_diff,
            "store_diff_seeds": store_diff * STORE_DIFF_SCALE,
        });
        super::out(&format!("{v}\n"))
    } else {
        let mut s = format!(
            "checkpoint {} (step {})\nposition {p}\n",
            dir.display(),
            ck.manifest.step
        );
        if kind != DeviceKind::Cpu {
            s.push_str(&format!("device {device_name}\n"));
        }
        s.push_str("move  logit   prior\n");
        for (i, (l, pr)) in logits.iter().zip(&priors).enumerate() {
            let mv = oware_core::game::move_letter(p.side, i);
            let mark = if legal & (1 << i) != 0 {
                ""
            } else {
                "  (illegal)"
            };
            s.push_str(&format!("{mv}    {l:>7.3}  {pr:.3}{mark}\n"));
        }
        s.push_str(&format!(
            "win {:.3}  draw {:.3}  loss {:.3}  value {value:+.3}\n\
             store difference {:+.2} seeds (raw {store_diff:+.4})\n",
            wdl[0],
            wdl[1],
            wdl[2],
            store_diff * STORE_DIFF_SCALE
        ));
        super::out(&s)
    }
}
