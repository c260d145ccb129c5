"""oware-zero self-play on a Ray cluster: one `oware train` learner on the head node,
self-play actors anywhere in the cluster, sample chunks and checkpoints carried by Ray's
object store (no shared filesystem)."""

__version__ = "0.1.0"
