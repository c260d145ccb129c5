import json, urllib.request
def post(port, path, body):
    req=urllib.request.Request(f'http://127.0.0.1:{port}/api/v1/{path}', data=json.dumps(body).encode())
    return json.load(urllib.request.urlopen(req, timeout=600))
games=[]
for g in range(6):
    moves=''
    pos=post(8093,'position',{'moves':moves})
    while pos['result'] is None and len(moves)<300:
        moves+=post(8093,'bestmove',{'moves':moves,'level':'novice'})['move']
        pos=post(8093,'position',{'moves':moves})
    games.append(moves)
open('/work/runs/novice-games.txt','w').write('\n'.join(games)+'\n')
for port,name in ((8094,'before (ed9658e)'),(8093,'after')):
    bl=own=kept=moves=0
    for mv in games:
        v=post(port,'analyze',{'moves':mv})
        for p in v['plies']:
            moves+=1
            if p['grade']=='blunder':
                bl+=1
                if p['move']==p['best']: own+=1
    print(name,'moves',moves,'blunders',bl,'the best move itself',own)
