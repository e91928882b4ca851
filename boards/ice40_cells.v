// The project's models of an iCE40 routed netlist's cells where Yosys's (share/ice40/cells_sim.v)
// cannot be compiled by Verilator: its ICESTORM_LC and ICESTORM_RAM pull an unconnected input up or
// down by comparing it with 1'bz, a tristate Verilator refuses. netlist.py ties every unconnected
// input to the level the cell pulls it to (CEN, RCLKE and WCLKE high, the others low) and renames the
// cells to these, which are Yosys's without the pulls.

module HWMG_ICESTORM_LC(
	input I0, I1, I2, I3, CIN, CLK, CEN, SR,
	output LO,
	output O,
	output COUT
);
	parameter [15:0] LUT_INIT = 0;
	parameter [0:0] NEG_CLK      = 0;
	parameter [0:0] CARRY_ENABLE = 0;
	parameter [0:0] DFF_ENABLE   = 0;
	parameter [0:0] SET_NORESET  = 0;
	parameter [0:0] ASYNC_SR     = 0;
	parameter [0:0] CIN_CONST    = 0;
	parameter [0:0] CIN_SET      = 0;

	wire mux_cin = CIN_CONST ? CIN_SET : CIN;
	// a cell with no carry drives 0 where Yosys's drives x (nothing reads it)
	assign COUT = CARRY_ENABLE ? (I1 && I2) || ((I1 || I2) && mux_cin) : 1'b0;

	wire [7:0] lut_s3 = I3 ? LUT_INIT[15:8] : LUT_INIT[7:0];
	wire [3:0] lut_s2 = I2 ? lut_s3[7:4] : lut_s3[3:0];
	wire [1:0] lut_s1 = I1 ? lut_s2[3:2] : lut_s2[1:0];
	wire       lut_o  = I0 ? lut_s1[1] : lut_s1[0];
	assign LO = lut_o;

	wire polarized_clk = CLK ^ NEG_CLK;
	reg o_reg = 1'b0;
	always @(posedge polarized_clk)
		if (CEN)
			o_reg <= SR ? SET_NORESET : lut_o;
	reg o_reg_async = 1'b0;
	always @(posedge polarized_clk, posedge SR)
		if (SR)
			o_reg_async <= SET_NORESET;
		else if (CEN)
			o_reg_async <= lut_o;
	assign O = DFF_ENABLE ? ASYNC_SR ? o_reg_async : o_reg : lut_o;
endmodule

module HWMG_ICESTORM_RAM(
	output RDATA_15, RDATA_14, RDATA_13, RDATA_12, RDATA_11, RDATA_10, RDATA_9, RDATA_8, RDATA_7, RDATA_6, RDATA_5, RDATA_4, RDATA_3, RDATA_2, RDATA_1, RDATA_0,
	input  RCLK, RCLKE, RE,
	input  RADDR_10, RADDR_9, RADDR_8, RADDR_7, RADDR_6, RADDR_5, RADDR_4, RADDR_3, RADDR_2, RADDR_1, RADDR_0,
	input  WCLK, WCLKE, WE,
	input  WADDR_10, WADDR_9, WADDR_8, WADDR_7, WADDR_6, WADDR_5, WADDR_4, WADDR_3, WADDR_2, WADDR_1, WADDR_0,
	input  MASK_15, MASK_14, MASK_13, MASK_12, MASK_11, MASK_10, MASK_9, MASK_8, MASK_7, MASK_6, MASK_5, MASK_4, MASK_3, MASK_2, MASK_1, MASK_0,
	input  WDATA_15, WDATA_14, WDATA_13, WDATA_12, WDATA_11, WDATA_10, WDATA_9, WDATA_8, WDATA_7, WDATA_6, WDATA_5, WDATA_4, WDATA_3, WDATA_2, WDATA_1, WDATA_0
);
	parameter WRITE_MODE = 0;
	parameter READ_MODE = 0;
	parameter NEG_CLK_R = 1'b0;
	parameter NEG_CLK_W = 1'b0;
	parameter INIT_0 = 256'h0;
	parameter INIT_1 = 256'h0;
	parameter INIT_2 = 256'h0;
	parameter INIT_3 = 256'h0;
	parameter INIT_4 = 256'h0;
	parameter INIT_5 = 256'h0;
	parameter INIT_6 = 256'h0;
	parameter INIT_7 = 256'h0;
	parameter INIT_8 = 256'h0;
	parameter INIT_9 = 256'h0;
	parameter INIT_A = 256'h0;
	parameter INIT_B = 256'h0;
	parameter INIT_C = 256'h0;
	parameter INIT_D = 256'h0;
	parameter INIT_E = 256'h0;
	parameter INIT_F = 256'h0;

	SB_RAM40_4K #(
		.WRITE_MODE(WRITE_MODE),
		.READ_MODE(READ_MODE),
		.INIT_0(INIT_0),
		.INIT_1(INIT_1),
		.INIT_2(INIT_2),
		.INIT_3(INIT_3),
		.INIT_4(INIT_4),
		.INIT_5(INIT_5),
		.INIT_6(INIT_6),
		.INIT_7(INIT_7),
		.INIT_8(INIT_8),
		.INIT_9(INIT_9),
		.INIT_A(INIT_A),
		.INIT_B(INIT_B),
		.INIT_C(INIT_C),
		.INIT_D(INIT_D),
		.INIT_E(INIT_E),
		.INIT_F(INIT_F)
	) RAM (
		.RDATA({RDATA_15, RDATA_14, RDATA_13, RDATA_12, RDATA_11, RDATA_10, RDATA_9, RDATA_8, RDATA_7, RDATA_6, RDATA_5, RDATA_4, RDATA_3, RDATA_2, RDATA_1, RDATA_0}),
		.RCLK(RCLK ^ NEG_CLK_R),
		.RCLKE(RCLKE),
		.RE(RE),
		.RADDR({RADDR_10, RADDR_9, RADDR_8, RADDR_7, RADDR_6, RADDR_5, RADDR_4, RADDR_3, RADDR_2, RADDR_1, RADDR_0}),
		.WCLK(WCLK ^ NEG_CLK_W),
		.WCLKE(WCLKE),
		.WE(WE),
		.WADDR({WADDR_10, WADDR_9, WADDR_8, WADDR_7, WADDR_6, WADDR_5, WADDR_4, WADDR_3, WADDR_2, WADDR_1, WADDR_0}),
		.MASK({MASK_15, MASK_14, MASK_13, MASK_12, MASK_11, MASK_10, MASK_9, MASK_8, MASK_7, MASK_6, MASK_5, MASK_4, MASK_3, MASK_2, MASK_1, MASK_0}),
		.WDATA({WDATA_15, WDATA_14, WDATA_13, WDATA_12, WDATA_11, WDATA_10, WDATA_9, WDATA_8, WDATA_7, WDATA_6, WDATA_5, WDATA_4, WDATA_3, WDATA_2, WDATA_1, WDATA_0})
	);
endmodule
