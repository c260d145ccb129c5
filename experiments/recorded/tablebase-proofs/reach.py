"""How many boards (mover's view) non-capturing play reaches from each position given.

A sketch of the abapa moves, not the game engine: sow counter-clockwise skipping the
origin pit; a move whose last seed makes 2 or 3 in an opponent's pit counts as a capture
(an exit, not followed; a grand slam counted so too); a player must give seeds to an
opponent who has none when he can. Prints None past 400 000 boards.

    python3 reach.py 4-0-3-0-1-0-1-0-1-0-0-0-20-18-S
"""
import sys
from collections import deque
def moves(b):
    # b: tuple of 12, mover's pits 0..5
    out=[]
    opp_empty = sum(b[6:])==0
    cand=[]
    for a in range(6):
        if b[a]==0: continue
        p=list(b); s=p[a]; p[a]=0; i=a
        while s:
            i=(i+1)%12
            if i==a: continue
            p[i]+=1; s-=1
        cap=False
        if 6<=i<12 and p[i] in (2,3): cap=True
        cand.append((a,p,cap))
    if opp_empty:
        cand=[c for c in cand if sum(c[1][6:])>0] or []
    for a,p,cap in cand:
        if cap: continue
        q=tuple(p[6:]+p[:6])
        out.append(q)
    return out
def reach(b,cap=10**6):
    seen={b}; dq=deque([b])
    while dq:
        x=dq.popleft()
        for y in moves(x):
            if y not in seen:
                seen.add(y); dq.append(y)
                if len(seen)>cap: return None
    return len(seen)
for fen in sys.argv[1:]:
    f=list(map(int,fen.split('-')[:12])); side=fen[-1]
    b=tuple(f) if side=='S' else tuple(f[6:]+f[:6])
    print(fen, reach(b,400000))
