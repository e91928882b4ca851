// C++ driver for the CXXRTL model of hwmovegen's HostLinkTop: a dev board's whole top level
// (UART, host link, generator, perft array) reached only through its pins.
//
// Python hands in the rx pin's level for every cycle of a stretch and gets back the bytes the
// board sent on tx in that stretch, decoded here as a host's UART would (8N1, each bit sampled
// at its middle), so that no Python runs per cycle. Built with either simulator's model (driver.h):
// the RTL's, or a netlist's that keeps the top's port names; see hwmovegen/sim/cxxrtl/.

#include <cstdint>
#include "driver.h"

using hwmg::get;
using hwmg::set;

namespace {

struct Board : hwmg::Clocked<> {
    long divisor = 4;
    // the host's receiver on tx: cycles to the next sample (0: idle), the bit sampled next
    long wait = 0;
    int bit = 0;
    uint32_t shift = 0;
    // the tx and busy pins as the last edge sampled them
    bool tx = true, busy = false;

    // One cycle: the rx level in, returns the byte completed on tx this cycle, or -1. The pins are
    // read between begin_cycle and finish_cycle, the levels the edge samples, as every driver reads
    // its outputs: read after the whole tick, CXXRTL's flattened model would still show a pin driven
    // through logic (tx is the UART's shift register's bit 0) as before the edge, and Verilator's
    // and the stepped model's as after it, a cycle apart.
    int cycle(bool rx) {
        set(PORT(rx), rx);
        begin_cycle();
        tx = get<bool>(PORT(tx));
        busy = get<bool>(PORT(busy));
        finish_cycle();
        if (wait == 0) {
            if (!tx) { wait = divisor / 2 + divisor; bit = 0; shift = 0; }     // a start bit: to data bit 0's middle
            return -1;
        }
        if (--wait) return -1;
        if (bit < 8) {
            shift |= uint32_t(tx) << bit++;
            wait = divisor;
            return -1;
        }
        wait = 0;                                                                // the stop bit's middle
        return tx ? int(shift) : -1;                                             // a framing error is no byte
    }
};

}  // namespace

extern "C" {

void *hwmg_create(uint64_t) {
    Board *b = new Board;
    set(b->PORT(rx), true);
    b->reset();
    return b;
}

void hwmg_destroy(void *handle) { delete static_cast<Board *>(handle); }

uint64_t hwmg_clock_cycles(void *handle) { return static_cast<Board *>(handle)->clock_cycles; }

void hwmg_set_divisor(void *handle, long divisor) { static_cast<Board *>(handle)->divisor = divisor; }

// A design with shared submodules (the ordering stage's, the search engine's) needs the stepped
// cycle: set before use, the reset run again that way. The create's reset ran without it, and a
// design that needs it (the search engine's) did not settle there: that verdict goes with it.
void hwmg_hierarchical(void *handle, int on) {
    Board *b = static_cast<Board *>(handle);
    b->hierarchical = on != 0;
    b->settled = true;
    b->reset();
}

// The board's reset pressed for a cycle (the line idle); the host's receiver is left as it was.
void hwmg_board_reset(void *handle) {
    Board *b = static_cast<Board *>(handle);
    set(b->PORT(rx), true);
    b->reset();
}

// `cycles` cycles with the rx levels `rx[i]` (0 or 1); the bytes received on tx go to `out`
// (room for `room`, more are dropped and counted in the return value all the same). Returns the
// bytes received, or -1 if a cycle did not settle in one eval (the design needs hwmg_hierarchical).
long hwmg_run(void *handle, long cycles, const uint8_t *rx, uint8_t *out, long room) {
    Board *b = static_cast<Board *>(handle);
    long got = 0;
    for (long i = 0; i < cycles; i++) {
        int byte = b->cycle(rx[i] != 0);
        if (byte >= 0) {
            if (got < room) out[got] = uint8_t(byte);
            got++;
        }
    }
    return b->settled ? got : -1;
}

// Like hwmg_run with the line idle (high) throughout; stops early once `stop_after` bytes came.
long hwmg_idle(void *handle, long cycles, uint8_t *out, long room, long stop_after, long *ran) {
    Board *b = static_cast<Board *>(handle);
    long got = 0, i = 0;
    for (; i < cycles && got < stop_after; i++) {
        int byte = b->cycle(true);
        if (byte >= 0) {
            if (got < room) out[got] = uint8_t(byte);
            got++;
        }
    }
    *ran = i;
    return b->settled ? got : -1;
}

int hwmg_busy(void *handle) {
    Board *b = static_cast<Board *>(handle);
    return b->busy || b->wait != 0 || !b->tx;
}

}  // extern "C"
