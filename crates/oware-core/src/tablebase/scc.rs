//! Strongly connected components of a graph given by its adjacency, found by Tarjan's
//! algorithm without recursion (a count's graph has a million boards and lines of
//! non-capturing moves far longer than a thread's stack would hold).
//!
//! Why the tables want them: a position of the history can recur only if play from the
//! board now can reach it without a capture, and it lies on the path to the board now,
//! so the board is reachable from it: it is in the board's component. The history
//! outside that component can never end the game, so the value with a history equals
//! the value with the history's part inside the component (docs/tablebase.md,
//! "Components of a count").

/// The strongly connected components of a graph: each node's component, each
/// component's size.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Components {
    /// The component of each node (an index into `sizes`). Components are numbered in
    /// the order Tarjan's algorithm closes them: a component only after every one
    /// reachable from it, so the higher the number, the further upstream.
    pub of: Vec<u32>,
    /// Nodes in each component.
    pub sizes: Vec<u32>,
}

impl Components {
    /// The size of the component holding `node`.
    #[inline]
    pub fn size_of(&self, node: usize) -> u32 {
        self.sizes[self.of[node] as usize]
    }
}

/// A node not reached yet.
const UNSEEN: u32 = u32::MAX;

/// The components of the graph with `nodes` nodes in which node `v` has `degree(v)`
/// successors, the `i`-th being `next(v, i)`. Linear in nodes and edges; memory is a few
/// words a node, none per edge.
pub fn strongly_connected(
    nodes: usize,
    degree: impl Fn(usize) -> usize,
    next: impl Fn(usize, usize) -> usize,
) -> Components {
    assert!(nodes < UNSEEN as usize, "at most 2^32 - 1 nodes");
    let mut t = Tarjan {
        order: vec![UNSEEN; nodes],
        low: vec![0; nodes],
        on_stack: vec![false; nodes],
        stack: Vec::new(),
        path: Vec::new(),
        clock: 0,
        of: vec![UNSEEN; nodes],
        sizes: Vec::new(),
    };
    for root in 0..nodes {
        if t.order[root] != UNSEEN {
            continue;
        }
        t.reach(root);
        while let Some(&mut (v, ref mut i)) = t.path.last_mut() {
            let v = v as usize;
            if (*i as usize) < degree(v) {
                let w = next(v, *i as usize);
                *i += 1;
                if t.order[w] == UNSEEN {
                    t.reach(w);
                } else if t.on_stack[w] {
                    t.low[v] = t.low[v].min(t.order[w]);
                }
            } else {
                t.leave(v);
            }
        }
    }
    Components {
        of: t.of,
        sizes: t.sizes,
    }
}

/// The state of Tarjan's depth-first search, the recursion's frames kept in `path`.
struct Tarjan {
    /// When each node was reached (`UNSEEN` before).
    order: Vec<u32>,
    /// The earliest-reached node still on the stack that each node's subtree reaches.
    low: Vec<u32>,
    on_stack: Vec<bool>,
    /// Nodes reached whose component is not closed yet.
    stack: Vec<u32>,
    /// The depth-first path: each node and the index of its next edge to try.
    path: Vec<(u32, u32)>,
    clock: u32,
    of: Vec<u32>,
    sizes: Vec<u32>,
}

impl Tarjan {
    /// Enters node `v`.
    fn reach(&mut self, v: usize) {
        self.order[v] = self.clock;
        self.low[v] = self.clock;
        self.clock += 1;
        self.on_stack[v] = true;
        self.stack.push(v as u32);
        self.path.push((v as u32, 0));
    }

    /// Leaves node `v`, every edge tried: hands its `low` to its parent, and closes its
    /// component if `v` is the first node reached in it.
    fn leave(&mut self, v: usize) {
        self.path.pop();
        if let Some(&(u, _)) = self.path.last() {
            let u = u as usize;
            self.low[u] = self.low[u].min(self.low[v]);
        }
        if self.low[v] != self.order[v] {
            return;
        }
        let id = self.sizes.len() as u32;
        let mut size = 0;
        loop {
            let w = self.stack.pop().expect("v is on the stack") as usize;
            self.on_stack[w] = false;
            self.of[w] = id;
            size += 1;
            if w == v {
                break;
            }
        }
        self.sizes.push(size);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The components of a graph given as adjacency lists.
    fn of_lists(adj: &[Vec<usize>]) -> Components {
        strongly_connected(adj.len(), |v| adj[v].len(), |v, i| adj[v][i])
    }

    #[test]
    fn a_small_graph_drawn_by_hand() {
        // 0 → 1 → 2 → 0 is one cycle; 2 → 3 ⇄ 4 another, downstream; 5 alone with a
        // self-loop; 6 alone, no edge.
        let adj = vec![
            vec![1],
            vec![2],
            vec![0, 3],
            vec![4],
            vec![3],
            vec![5, 0],
            vec![],
        ];
        let c = of_lists(&adj);
        let same = |a: usize, b: usize| c.of[a] == c.of[b];
        assert!(same(0, 1) && same(1, 2) && same(3, 4));
        assert!(!same(2, 3) && !same(5, 0) && !same(6, 0) && !same(5, 6));
        assert_eq!(
            (c.size_of(0), c.size_of(3), c.size_of(5), c.size_of(6)),
            (3, 2, 1, 1)
        );
        assert_eq!(c.sizes.len(), 4);
        // Downstream components close first: {3, 4} before {0, 1, 2} before {5}.
        assert!(c.of[3] < c.of[0] && c.of[0] < c.of[5]);
    }

    #[test]
    fn a_long_line_does_not_overflow_the_stack() {
        // A cycle of a million nodes: one component, found without recursion.
        let n = 1_000_000;
        let c = strongly_connected(n, |_| 1, |v, _| (v + 1) % n);
        assert_eq!(c.sizes, vec![n as u32]);
    }
}
