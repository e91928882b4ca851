"""``hwmovegen cluster certs``: the certificates of a Dask cluster locked with mutual TLS."""

import json

from .common import CliError, add_json
from .validate import whole

__all__ = ["register", "run"]

MAX_DAYS = 10 * 366


def register(subparsers):
    p = subparsers.add_parser("cluster", help="the certificates of a TLS-locked Dask cluster (for --cluster tls://)",
                              description="Make what a Dask cluster locked with mutual TLS needs: a certificate "
                                          "authority of its own and, signed by it, a certificate and key for the "
                                          "scheduler, the workers and the clients (hwmovegen's --cluster "
                                          "tls://HOST:PORT --certs DIR).")
    p.add_argument("action", choices=("certs",),
                   help="certs: write ca.pem, ca-key.pem (keep it off the cluster: it signs new certificates) and "
                        "the scheduler's, workers' and clients' .pem / -key.pem into DIR (made if missing; none of "
                        "the files may exist; keys readable by their owner only)")
    p.add_argument("dir", metavar="DIR", help="the folder to write")
    p.add_argument("--days", type=whole(1, MAX_DAYS), default=365,
                   help="how long the certificates are valid (default 365 days)")
    p.add_argument("--name", default="hwmovegen", help="the name in the certificates (default hwmovegen)")
    add_json(p)


def run(args):
    try:
        from ..sim.drivers.certs import make_certificates
        written = make_certificates(args.dir, days=args.days, name=args.name)
    except ImportError:
        raise CliError("cluster certs needs the cryptography package: pip install 'hwmovegen[cluster]'") from None
    except (FileExistsError, NotADirectoryError, PermissionError) as error:
        raise CliError(str(error)) from None
    except OSError as error:
        raise CliError(f"cannot write {args.dir}: {error.strerror or error}") from None
    if args.json:
        print(json.dumps({"dir": args.dir, "days": args.days, "files": {name: str(path) for name, path in
                                                                           written.items()}}))
        return 0
    for name, path in written.items():
        print(path)
    print(f"# valid {args.days} days; give the scheduler, each worker and each client its own pair with ca.pem "
          f"(ca-key.pem stays off the cluster)")
    return 0
