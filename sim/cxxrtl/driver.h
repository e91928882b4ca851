// What hwmovegen's drivers share, for either simulator: the model (cxxrtl_model.h, or
// verilator_model.h when built with -DHWMG_VERILATOR), its ports by name, the clock, the load port.
//
// Every top has `clk`, `rst` and a LoadSignature port named `load` (hwmovegen.rtl.board).
// formats.h gives the position image's layout (generated from hwmovegen/rtl/types.py), ports.h
// the model's member of each top-level port (generated from the design: PORT_<name>, the name as
// Amaranth gives it, e.g. load__clear), which each simulator spells its own way.
#pragma once

#include <cstdint>
#include <type_traits>
#include <utility>
#include "formats.h"
#include "ports.h"
#ifdef HWMG_VERILATOR
#include "verilator_model.h"
#else
#include "cxxrtl_model.h"
#endif

// The top's port `name` (Amaranth's name: load__clear, moves__payload), where `top` is the model.
#define PORT(name) top.PORT_##name
// Its type, for hwmg::Words.
#define PORT_TYPE(name) typename std::decay<decltype(std::declval<hwmg::Top &>().PORT_##name)>::type

namespace hwmg {

// The template's parameter is the top's class (there is one): the ports are reached through
// `this`, so that only what a driver calls is compiled (the host link's top has no load port).
template<class T = Top>
struct Clocked : Model<T> {
    void reset() {
        set(this->PORT(rst), true);
        this->tick();
        set(this->PORT(rst), false);
        this->tick();
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
            set(this->PORT(load__clear), true);
            set(this->PORT(load__state_en), true);
            set(this->PORT(load__state), state);
            phase = 1;
        } else {
            while (phase <= 8 && !rank_planes(image, phase - 1)) phase++;
            if (phase > 8) return false;
            set(this->PORT(load__rank_en), true);
            set(this->PORT(load__rank), uint32_t(phase - 1));
            set(this->PORT(load__rank_planes), rank_planes(image, phase - 1));
            phase++;
        }
        while (phase <= 8 && !rank_planes(image, phase - 1)) phase++;
        return phase <= 8;
    }

    void load_idle() {
        set(this->PORT(load__clear), false);
        set(this->PORT(load__state_en), false);
        set(this->PORT(load__rank_en), false);
    }

    // A whole load, one step a cycle, nothing else driven.
    void load(const uint8_t *image) {
        int phase = 0;
        bool more = true;
        while (more) {
            load_idle();
            more = load_step(image, phase);
            this->tick();
        }
        load_idle();
    }
};

}  // namespace hwmg
