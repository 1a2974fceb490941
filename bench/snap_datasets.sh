# snap_datasets.sh: sourced by the DyGNeX bench scripts (dygnex.sh, dygnex_models.sh): the two
# snapshot datasets with the trainer's arguments that cut them as EvolveGCN's configs do. Needs
# $data; reads SETS ("ba cm" unless set); sets file[], args[] and $sets (the datasets present),
# and exits 0 with a message when none is.
declare -A file args
file[ba]=$data/bitcoin-alpha/soc-sign-bitcoinalpha.csv
args[ba]=""
file[cm]=$data/collegemsg/CollegeMsg.txt
args[cm]="--preset uci --snapshot-seconds 190080"
sets=""
for d in ${SETS:-ba cm}; do
  if [ -e "${file[$d]}" ]; then sets="$sets $d"; else echo "skip: ${file[$d]} not found"; fi
done
[ -n "$sets" ] || exit 0
