import sys
from pathlib import Path
from tests.support.view_vectors import view_vectors, corpus_view_vectors, write
games = list(view_vectors(int(sys.argv[1]), int(sys.argv[2])))
if len(sys.argv) > 4: games += list(corpus_view_vectors())
write(Path(sys.argv[3]), games)
print(sum(len(v["payloads"]) for g in games for v in g["views"]), "payloads")
