"""The independent ONNX runtime of tests/export.rs: runs an exported model in onnxruntime.

    python export_onnxruntime.py MODEL.onnx FEATURES.f32 DIM BATCHES OUT.f32

FEATURES.f32 holds `rows x DIM` little-endian float32 values (encoded positions, row by
row). For each batch size in BATCHES (comma-separated), the rows run through the model
in batches of that many rows (the last one shorter), and the three outputs of each row
(policy logits 6, W/D/L logits 3, store difference 1) are written to OUT.f32 as 10
float32 values, one block of `rows x 10` per batch size, in the order given. Exits 1
with one line on stderr if the model's input or outputs are not the documented ones.
"""

import sys

import numpy as np
import onnxruntime as ort

WIDTHS = {"policy_logits": 6, "wdl_logits": 3, "store_diff": 1}


def main(model, features, dim, batches, out):
    x = np.fromfile(features, dtype="<f4").reshape(-1, int(dim))
    opts = ort.SessionOptions()
    # One thread: the cargo tests beside this one have the other cores.
    opts.intra_op_num_threads = 1
    sess = ort.InferenceSession(model, opts, providers=["CPUExecutionProvider"])
    inputs = [i.name for i in sess.get_inputs()]
    outputs = [o.name for o in sess.get_outputs()]
    if inputs != ["features"] or outputs != list(WIDTHS):
        sys.exit(f"unexpected signature: inputs {inputs}, outputs {outputs}")
    blocks = []
    for batch in (int(b) for b in batches.split(",")):
        rows = []
        for r in range(0, len(x), batch):
            part = x[r : r + batch]
            got = sess.run(outputs, {"features": part})
            for name, o in zip(outputs, got):
                if o.shape != (len(part), WIDTHS[name]) or o.dtype != np.float32:
                    sys.exit(f"{name}: shape {o.shape} {o.dtype}, batch of {len(part)}")
            rows.append(np.concatenate(got, axis=1))
        blocks.append(np.concatenate(rows))
    np.concatenate(blocks).astype("<f4").tofile(out)


if __name__ == "__main__":
    if len(sys.argv) != 6:
        sys.exit(__doc__.strip().splitlines()[2].strip())
    main(*sys.argv[1:])
