// What hwmovegen's CXXRTL drivers share: the clock and the load port.
//
// Every top has `clk`, `rst` and a LoadSignature port named `load` (hwmovegen.rtl.board),
// and formats.h gives the position image's layout (generated from hwmovegen/rtl/types.py).
#pragma once

#include <cstdint>
#include <type_traits>
#include <utility>

namespace hwmg {

// A port is a value<> or, when a flip-flop drives it, a wire<>: its bits either way.
template<size_t Bits> const cxxrtl::value<Bits> &bits_of(const cxxrtl::value<Bits> &v) { return v; }
template<size_t Bits> const cxxrtl::value<Bits> &bits_of(const cxxrtl::wire<Bits> &w) { return w.curr; }

template<class Top>
struct Clocked {
    Top top;
    uint64_t clock_cycles = 0;         // every simulated cycle, loading included
    bool settled = true;
    // A design with hierarchy (shared copies of a module) may need several deltas a cycle:
    // `tick` then steps the edge, and steps again with the clock low, so that the outputs
    // read after it are those of the new cycle, settled.
    bool hierarchical = false;

    // One clock cycle costs one eval(): with the inputs set, raise the clock and
    // eval (the outputs now show the values sampled at this edge, exactly what
    // the pysim testbench's tick().sample() sees), then `finish_cycle` commits
    // the flip-flops and lowers the clock without another eval.
    // With hierarchy the same cycle takes steps: settle the inputs with the clock low (the
    // outputs are then what the edge samples), and in `finish_cycle` step the edge and settle.
    void begin_cycle() {
        if (hierarchical) {
            top.step();
            return;
        }
        top.p_clk.template set<bool>(true);
        if (!top.eval()) settled = false;   // the design would need step(); reported as an error
    }

    void finish_cycle() {
        if (hierarchical) {
            top.p_clk.template set<bool>(true);
            top.step();
            top.p_clk.template set<bool>(false);
            top.step();
            clock_cycles++;
            return;
        }
        top.commit();
        top.p_clk.template set<bool>(false);
        top.commit();
        clock_cycles++;
    }

    // With hierarchy the inputs are settled by the edge's step itself.
    void tick() {
        if (!hierarchical) begin_cycle();
        finish_cycle();
    }

    void reset() {
        top.p_rst.template set<bool>(true);
        tick();
        top.p_rst.template set<bool>(false);
        tick();
    }

    // The position image: the four bitplanes (byte r of a plane is rank r), then the
    // BoardState bytes. A load takes one cycle to clear the board and write the state,
    // then one cycle per rank that holds a piece; `load_step` drives one of those cycles
    // and returns whether the load goes on.
    static uint32_t rank_planes(const uint8_t *image, int rank) {
        uint32_t planes = 0;
        for (int plane = 0; plane < PLANES; plane++)
            planes |= uint32_t(image[plane * PLANE_BYTES + rank]) << (8 * plane);
        return planes;
    }

    bool load_step(const uint8_t *image, int &phase) {
        if (phase == 0) {
            uint32_t state = 0;
            for (int i = 0; i < STATE_BYTES; i++) state |= uint32_t(image[PLANES * PLANE_BYTES + i]) << (8 * i);
            top.p_load____clear.template set<bool>(true);
            top.p_load____state__en.template set<bool>(true);
            top.p_load____state.template set<uint32_t>(state);
            phase = 1;
        } else {
            while (phase <= 8 && !rank_planes(image, phase - 1)) phase++;
            if (phase > 8) return false;
            top.p_load____rank__en.template set<bool>(true);
            top.p_load____rank.template set<uint32_t>(phase - 1);
            top.p_load____rank__planes.template set<uint32_t>(rank_planes(image, phase - 1));
            phase++;
        }
        while (phase <= 8 && !rank_planes(image, phase - 1)) phase++;
        return phase <= 8;
    }

    void load_idle() {
        top.p_load____clear.template set<bool>(false);
        top.p_load____state__en.template set<bool>(false);
        top.p_load____rank__en.template set<bool>(false);
    }

    // A whole load, one step a cycle, nothing else driven.
    void load(const uint8_t *image) {
        int phase = 0;
        bool more = true;
        while (more) {
            load_idle();
            more = load_step(image, phase);
            tick();
        }
        load_idle();
    }
};

}  // namespace hwmg
