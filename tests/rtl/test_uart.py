"""UART: transmitter into receiver at several divisors; a broken stop bit is dropped."""

import random

import pytest
from amaranth import Elaboratable, Module
from amaranth.sim import Simulator

from hwmovegen.rtl.uart import UARTReceiver, UARTTransmitter


class Loopback(Elaboratable):
    def __init__(self, divisor):
        self.tx = UARTTransmitter(divisor)
        self.rx = UARTReceiver(divisor)

    def elaborate(self, platform):
        m = Module()
        m.submodules.tx, m.submodules.rx = self.tx, self.rx
        m.d.comb += self.rx.rx.eq(self.tx.tx)
        return m


@pytest.mark.parametrize("divisor", [4, 5, 13, 104])
def test_loopback(divisor):
    top = Loopback(divisor)
    data = bytes(random.Random(divisor).randrange(256) for _ in range(24 if divisor < 100 else 6))
    received = []

    async def send(ctx):
        for byte in data:
            ctx.set(top.tx.bytes.payload, byte)
            ctx.set(top.tx.bytes.valid, 1)
            await ctx.tick().until(top.tx.bytes.ready)
        ctx.set(top.tx.bytes.valid, 0)

    async def receive(ctx):
        async for _, _, valid, payload in ctx.tick().sample(top.rx.bytes.valid, top.rx.bytes.payload):
            if valid:
                received.append(payload)
                if len(received) == len(data):
                    return

    sim = Simulator(top)
    sim.add_clock(1e-8)
    sim.add_testbench(send, background=True)
    sim.add_testbench(receive)
    sim.run()
    assert bytes(received) == data


def test_a_low_stop_bit_is_a_framing_error_and_dropped():
    divisor = 8
    dut = UARTReceiver(divisor)
    events = []

    async def bench(ctx):
        def bits(byte, stop):
            return [0] + [(byte >> i) & 1 for i in range(8)] + [stop]
        ctx.set(dut.rx, 1)
        await ctx.tick().repeat(10)
        for bit in bits(0x5A, 0) + [1] * 4 + bits(0xC3, 1) + [1] * 4:
            ctx.set(dut.rx, bit)
            for _ in range(divisor):
                _, _, valid, payload, error = await ctx.tick().sample(dut.bytes.valid, dut.bytes.payload,
                                                                      dut.frame_error)
                if valid:
                    events.append(payload)
                if error:
                    events.append("framing error")

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(bench)
    sim.run()
    assert events == ["framing error", 0xC3]
