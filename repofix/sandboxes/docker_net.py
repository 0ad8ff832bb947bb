"""The network a Docker sandbox's setup phase uses, and the firewall that keeps the host out of it.

Setup commands may reach the internet (package indexes) but not the machine repofix runs on: its
bridge gateways, its own addresses, whatever listens on them (a local database, another container's
published port, the Docker API over TCP). Packets from a container to one of the host's own addresses
go through the host's INPUT chain, so one rule on the setup network's bridge interface rejects them
all; a second, in DOCKER-USER, rejects link-local addresses (cloud metadata services). The network
has inter-container traffic off, so two sandboxes in setup cannot talk to each other either."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

from repofix.sandboxes.base import SandboxError

NETWORK = "repofix-setup"
BRIDGE = "repofix-setup0"  # the host-side interface of NETWORK
RULES = (
    ("INPUT", "-i", BRIDGE, "-p", "tcp", "-j", "REJECT", "--reject-with", "tcp-reset"),
    ("INPUT", "-i", BRIDGE, "-j", "REJECT", "--reject-with", "icmp-port-unreachable"),
    (
        "DOCKER-USER",
        "-i",
        BRIDGE,
        "-d",
        "169.254.0.0/16",
        "-j",
        "REJECT",
        "--reject-with",
        "icmp-port-unreachable",
    ),
)
_warned = False


def setup_network(engine) -> str:
    """The setup network's name, after making sure it exists (`fence_host()` guards its use)."""
    import docker.errors

    try:
        engine.networks.get(NETWORK)
    except docker.errors.NotFound:
        options = {"com.docker.network.bridge.name": BRIDGE, "com.docker.network.bridge.enable_icc": "false"}
        mtu = engine.networks.get("bridge").attrs.get("Options", {}).get("com.docker.network.driver.mtu")
        if mtu:  # the engine's own MTU (e.g. under a tunnel); a new network would default to 1500
            options["com.docker.network.driver.mtu"] = mtu
        try:
            engine.networks.create(
                NETWORK, driver="bridge", options=options, labels={"org.repofix.network": "setup"}
            )
        except docker.errors.APIError as error:
            if error.status_code != 409:  # 409: another repofix created it meanwhile
                raise SandboxError(
                    f"docker could not create the setup network: {error.explanation or error}"
                ) from None
    return NETWORK


def fence_host() -> None:
    """Install the firewall rules once (idempotent). Without root they cannot be set: say so once."""
    global _warned
    iptables = shutil.which("iptables")
    if os.geteuid() != 0 or iptables is None:
        if not _warned:
            _warned = True
            print(
                f"repofix: warning: cannot fence the host off from the Docker setup network ("
                f"{'not root' if iptables else 'iptables is not installed'}); setup commands can reach "
                f"services on this machine. As root: iptables -I INPUT -i {BRIDGE} -j REJECT",
                file=sys.stderr,
            )
        return
    for chain, *rule in reversed(RULES):
        if (
            chain == "DOCKER-USER"
            and subprocess.run([iptables, "-w", "-S", chain], capture_output=True).returncode
        ):
            continue  # an engine that does not manage iptables has no DOCKER-USER chain
        check = subprocess.run([iptables, "-w", "-C", chain, *rule], capture_output=True)
        if check.returncode == 0:
            continue
        added = subprocess.run([iptables, "-w", "-I", chain, *rule], capture_output=True, text=True)
        if added.returncode:
            raise SandboxError(
                f"cannot fence the host off from the Docker setup network (iptables -I {chain} "
                f"{' '.join(rule)}): {added.stderr.strip()[-300:]}"
            )
