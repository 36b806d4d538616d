
import argparse, os
from verl.utils.hdfs_io import copy  # noqa: F401 - the import that failed in the Job
parser = argparse.ArgumentParser()
parser.add_argument("--local_save_dir")
args = parser.parse_args()
os.makedirs(args.local_save_dir, exist_ok=True)
for split in ("train", "test"):
    open(os.path.join(args.local_save_dir, split + ".parquet"), "wb").write(b"PAR1")
