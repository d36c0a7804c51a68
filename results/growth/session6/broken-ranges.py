import re,sys
files={};cur=None
for l in open(sys.argv[1]):
    if l.startswith('=='): cur=l.split()[1]; files[cur]=[]; continue
    m=re.match(r'\s*\d+:\s+(\d+)\.\.\s*(\d+):\s+(\d+)\.\.\s*(\d+):\s+(\d+):',l)
    if m and cur:
        lo,hi,plo,phi,n=map(int,m.groups()); files[cur].append((lo,hi,plo,n))
for f,ex in files.items():
    bad=[];nchunks=(ex[-1][1]+1)//512
    for c in range(1,nchunks):
        cs=c*512; ce=cs+512
        cov=[e for e in ex if e[0]<ce and e[1]>=cs]
        ok = len(cov)==1 and (cov[0][2]+(cs-cov[0][0]))%512==0 and cov[0][0]<=cs and cov[0][1]>=ce-1
        if not ok: bad.append((c,[(e[0],e[1],e[2]) for e in cov]))
    print(f,len(ex),'extents',len(bad),'bad chunks', bad[:3])
