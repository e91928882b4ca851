// Models of the ECP5 cells that Yosys's share/ecp5 lacks (hwmovegen/boards/netlist.py simulates netlists with them).
//
// The ECP5's 18 Kbit block RAM, DP16KD, whose model in Yosys's share/ecp5/cells_sim.v is a black box:
// two ports of 1, 2, 4, 9 or 18 bits, the contents of INITVAL_00..3F (sixteen 18-bit words to a
// 320-bit row, each padded to 20 bits; in the 1, 2 and 4 bit modes the two 9th bits of a word
// are parity and hold no data), write modes NORMAL, WRITETHROUGH and READBEFOREWRITE, the output
// register (REGMODE OUTREG, enabled by OCE), a reset (RESETMODE SYNC or ASYNC) of the outputs,
// byte enables in the 18-bit mode (AD[1:0] on a write), the 36-bit pseudo dual port mode, and the
// inputs' inverter muxes. Generated with the rows listed by a
// loop (Verilog cannot index parameters by name); behaviour only, as Yosys's models are.
module DP16KD(
	input DIA17, DIA16, DIA15, DIA14, DIA13, DIA12, DIA11, DIA10, DIA9, DIA8, DIA7, DIA6, DIA5, DIA4, DIA3, DIA2, DIA1, DIA0,
	input ADA13, ADA12, ADA11, ADA10, ADA9, ADA8, ADA7, ADA6, ADA5, ADA4, ADA3, ADA2, ADA1, ADA0,
	input CEA, OCEA, CLKA, WEA, RSTA, CSA2, CSA1, CSA0,
	output DOA17, DOA16, DOA15, DOA14, DOA13, DOA12, DOA11, DOA10, DOA9, DOA8, DOA7, DOA6, DOA5, DOA4, DOA3, DOA2, DOA1, DOA0,
	input DIB17, DIB16, DIB15, DIB14, DIB13, DIB12, DIB11, DIB10, DIB9, DIB8, DIB7, DIB6, DIB5, DIB4, DIB3, DIB2, DIB1, DIB0,
	input ADB13, ADB12, ADB11, ADB10, ADB9, ADB8, ADB7, ADB6, ADB5, ADB4, ADB3, ADB2, ADB1, ADB0,
	input CEB, OCEB, CLKB, WEB, RSTB, CSB2, CSB1, CSB0,
	output DOB17, DOB16, DOB15, DOB14, DOB13, DOB12, DOB11, DOB10, DOB9, DOB8, DOB7, DOB6, DOB5, DOB4, DOB3, DOB2, DOB1, DOB0
);
	parameter integer DATA_WIDTH_A = 18;
	parameter integer DATA_WIDTH_B = 18;
	parameter REGMODE_A = "NOREG";
	parameter REGMODE_B = "NOREG";
	parameter RESETMODE = "SYNC";
	parameter ASYNC_RESET_RELEASE = "SYNC";
	parameter CSDECODE_A = "0b000";
	parameter CSDECODE_B = "0b000";
	parameter WRITEMODE_A = "NORMAL";
	parameter WRITEMODE_B = "NORMAL";
	parameter CLKAMUX = "CLKA";
	parameter CLKBMUX = "CLKB";
	parameter GSR = "ENABLED";
	parameter INIT_DATA = "STATIC";
	// each input's inverter mux (nextpnr's routed netlist: "INV" on an unconnected pin, which is high,
	// is a constant 0; "0" and "1" are constants; the pin's name passes it)
	parameter DIA0MUX = "DIA0";
	parameter DIA1MUX = "DIA1";
	parameter DIA2MUX = "DIA2";
	parameter DIA3MUX = "DIA3";
	parameter DIA4MUX = "DIA4";
	parameter DIA5MUX = "DIA5";
	parameter DIA6MUX = "DIA6";
	parameter DIA7MUX = "DIA7";
	parameter DIA8MUX = "DIA8";
	parameter DIA9MUX = "DIA9";
	parameter DIA10MUX = "DIA10";
	parameter DIA11MUX = "DIA11";
	parameter DIA12MUX = "DIA12";
	parameter DIA13MUX = "DIA13";
	parameter DIA14MUX = "DIA14";
	parameter DIA15MUX = "DIA15";
	parameter DIA16MUX = "DIA16";
	parameter DIA17MUX = "DIA17";
	parameter ADA0MUX = "ADA0";
	parameter ADA1MUX = "ADA1";
	parameter ADA2MUX = "ADA2";
	parameter ADA3MUX = "ADA3";
	parameter ADA4MUX = "ADA4";
	parameter ADA5MUX = "ADA5";
	parameter ADA6MUX = "ADA6";
	parameter ADA7MUX = "ADA7";
	parameter ADA8MUX = "ADA8";
	parameter ADA9MUX = "ADA9";
	parameter ADA10MUX = "ADA10";
	parameter ADA11MUX = "ADA11";
	parameter ADA12MUX = "ADA12";
	parameter ADA13MUX = "ADA13";
	parameter CEAMUX = "CEA";
	parameter OCEAMUX = "OCEA";
	parameter WEAMUX = "WEA";
	parameter RSTAMUX = "RSTA";
	parameter CSA2MUX = "CSA2";
	parameter CSA1MUX = "CSA1";
	parameter CSA0MUX = "CSA0";
	parameter DIB0MUX = "DIB0";
	parameter DIB1MUX = "DIB1";
	parameter DIB2MUX = "DIB2";
	parameter DIB3MUX = "DIB3";
	parameter DIB4MUX = "DIB4";
	parameter DIB5MUX = "DIB5";
	parameter DIB6MUX = "DIB6";
	parameter DIB7MUX = "DIB7";
	parameter DIB8MUX = "DIB8";
	parameter DIB9MUX = "DIB9";
	parameter DIB10MUX = "DIB10";
	parameter DIB11MUX = "DIB11";
	parameter DIB12MUX = "DIB12";
	parameter DIB13MUX = "DIB13";
	parameter DIB14MUX = "DIB14";
	parameter DIB15MUX = "DIB15";
	parameter DIB16MUX = "DIB16";
	parameter DIB17MUX = "DIB17";
	parameter ADB0MUX = "ADB0";
	parameter ADB1MUX = "ADB1";
	parameter ADB2MUX = "ADB2";
	parameter ADB3MUX = "ADB3";
	parameter ADB4MUX = "ADB4";
	parameter ADB5MUX = "ADB5";
	parameter ADB6MUX = "ADB6";
	parameter ADB7MUX = "ADB7";
	parameter ADB8MUX = "ADB8";
	parameter ADB9MUX = "ADB9";
	parameter ADB10MUX = "ADB10";
	parameter ADB11MUX = "ADB11";
	parameter ADB12MUX = "ADB12";
	parameter ADB13MUX = "ADB13";
	parameter CEBMUX = "CEB";
	parameter OCEBMUX = "OCEB";
	parameter WEBMUX = "WEB";
	parameter RSTBMUX = "RSTB";
	parameter CSB2MUX = "CSB2";
	parameter CSB1MUX = "CSB1";
	parameter CSB0MUX = "CSB0";
	parameter [319:0] INITVAL_00 = 320'h0;
	parameter [319:0] INITVAL_01 = 320'h0;
	parameter [319:0] INITVAL_02 = 320'h0;
	parameter [319:0] INITVAL_03 = 320'h0;
	parameter [319:0] INITVAL_04 = 320'h0;
	parameter [319:0] INITVAL_05 = 320'h0;
	parameter [319:0] INITVAL_06 = 320'h0;
	parameter [319:0] INITVAL_07 = 320'h0;
	parameter [319:0] INITVAL_08 = 320'h0;
	parameter [319:0] INITVAL_09 = 320'h0;
	parameter [319:0] INITVAL_0A = 320'h0;
	parameter [319:0] INITVAL_0B = 320'h0;
	parameter [319:0] INITVAL_0C = 320'h0;
	parameter [319:0] INITVAL_0D = 320'h0;
	parameter [319:0] INITVAL_0E = 320'h0;
	parameter [319:0] INITVAL_0F = 320'h0;
	parameter [319:0] INITVAL_10 = 320'h0;
	parameter [319:0] INITVAL_11 = 320'h0;
	parameter [319:0] INITVAL_12 = 320'h0;
	parameter [319:0] INITVAL_13 = 320'h0;
	parameter [319:0] INITVAL_14 = 320'h0;
	parameter [319:0] INITVAL_15 = 320'h0;
	parameter [319:0] INITVAL_16 = 320'h0;
	parameter [319:0] INITVAL_17 = 320'h0;
	parameter [319:0] INITVAL_18 = 320'h0;
	parameter [319:0] INITVAL_19 = 320'h0;
	parameter [319:0] INITVAL_1A = 320'h0;
	parameter [319:0] INITVAL_1B = 320'h0;
	parameter [319:0] INITVAL_1C = 320'h0;
	parameter [319:0] INITVAL_1D = 320'h0;
	parameter [319:0] INITVAL_1E = 320'h0;
	parameter [319:0] INITVAL_1F = 320'h0;
	parameter [319:0] INITVAL_20 = 320'h0;
	parameter [319:0] INITVAL_21 = 320'h0;
	parameter [319:0] INITVAL_22 = 320'h0;
	parameter [319:0] INITVAL_23 = 320'h0;
	parameter [319:0] INITVAL_24 = 320'h0;
	parameter [319:0] INITVAL_25 = 320'h0;
	parameter [319:0] INITVAL_26 = 320'h0;
	parameter [319:0] INITVAL_27 = 320'h0;
	parameter [319:0] INITVAL_28 = 320'h0;
	parameter [319:0] INITVAL_29 = 320'h0;
	parameter [319:0] INITVAL_2A = 320'h0;
	parameter [319:0] INITVAL_2B = 320'h0;
	parameter [319:0] INITVAL_2C = 320'h0;
	parameter [319:0] INITVAL_2D = 320'h0;
	parameter [319:0] INITVAL_2E = 320'h0;
	parameter [319:0] INITVAL_2F = 320'h0;
	parameter [319:0] INITVAL_30 = 320'h0;
	parameter [319:0] INITVAL_31 = 320'h0;
	parameter [319:0] INITVAL_32 = 320'h0;
	parameter [319:0] INITVAL_33 = 320'h0;
	parameter [319:0] INITVAL_34 = 320'h0;
	parameter [319:0] INITVAL_35 = 320'h0;
	parameter [319:0] INITVAL_36 = 320'h0;
	parameter [319:0] INITVAL_37 = 320'h0;
	parameter [319:0] INITVAL_38 = 320'h0;
	parameter [319:0] INITVAL_39 = 320'h0;
	parameter [319:0] INITVAL_3A = 320'h0;
	parameter [319:0] INITVAL_3B = 320'h0;
	parameter [319:0] INITVAL_3C = 320'h0;
	parameter [319:0] INITVAL_3D = 320'h0;
	parameter [319:0] INITVAL_3E = 320'h0;
	parameter [319:0] INITVAL_3F = 320'h0;

	reg [17:0] mem [0:1023];

	function [319:0] initval(input integer row);
		case (row)
			0: initval = INITVAL_00;
			1: initval = INITVAL_01;
			2: initval = INITVAL_02;
			3: initval = INITVAL_03;
			4: initval = INITVAL_04;
			5: initval = INITVAL_05;
			6: initval = INITVAL_06;
			7: initval = INITVAL_07;
			8: initval = INITVAL_08;
			9: initval = INITVAL_09;
			10: initval = INITVAL_0A;
			11: initval = INITVAL_0B;
			12: initval = INITVAL_0C;
			13: initval = INITVAL_0D;
			14: initval = INITVAL_0E;
			15: initval = INITVAL_0F;
			16: initval = INITVAL_10;
			17: initval = INITVAL_11;
			18: initval = INITVAL_12;
			19: initval = INITVAL_13;
			20: initval = INITVAL_14;
			21: initval = INITVAL_15;
			22: initval = INITVAL_16;
			23: initval = INITVAL_17;
			24: initval = INITVAL_18;
			25: initval = INITVAL_19;
			26: initval = INITVAL_1A;
			27: initval = INITVAL_1B;
			28: initval = INITVAL_1C;
			29: initval = INITVAL_1D;
			30: initval = INITVAL_1E;
			31: initval = INITVAL_1F;
			32: initval = INITVAL_20;
			33: initval = INITVAL_21;
			34: initval = INITVAL_22;
			35: initval = INITVAL_23;
			36: initval = INITVAL_24;
			37: initval = INITVAL_25;
			38: initval = INITVAL_26;
			39: initval = INITVAL_27;
			40: initval = INITVAL_28;
			41: initval = INITVAL_29;
			42: initval = INITVAL_2A;
			43: initval = INITVAL_2B;
			44: initval = INITVAL_2C;
			45: initval = INITVAL_2D;
			46: initval = INITVAL_2E;
			47: initval = INITVAL_2F;
			48: initval = INITVAL_30;
			49: initval = INITVAL_31;
			50: initval = INITVAL_32;
			51: initval = INITVAL_33;
			52: initval = INITVAL_34;
			53: initval = INITVAL_35;
			54: initval = INITVAL_36;
			55: initval = INITVAL_37;
			56: initval = INITVAL_38;
			57: initval = INITVAL_39;
			58: initval = INITVAL_3A;
			59: initval = INITVAL_3B;
			60: initval = INITVAL_3C;
			61: initval = INITVAL_3D;
			62: initval = INITVAL_3E;
			63: initval = INITVAL_3F;
			default: initval = 320'h0;
		endcase
	endfunction

	integer row, word;
	initial
		for (row = 0; row < 64; row = row + 1)
			for (word = 0; word < 16; word = word + 1)
				mem[row * 16 + word] = initval(row) >> (20 * word);

	function pin(input [39:0] mux, input value);
		pin = mux == "INV" ? ~value : mux == "0" ? 1'b0 : mux == "1" ? 1'b1 : value;
	endfunction

	// "0b101" -> 3'b101
	function [2:0] decode(input [39:0] text);
		decode = {text[23:16] == "1", text[15:8] == "1", text[7:0] == "1"};
	endfunction

	// the storage bit of data bit `bit` in the narrow (1, 2, 4 bit) modes: 16 data bits a word
	function integer narrow_bit(input integer bit_index);
		narrow_bit = (bit_index / 16) * 18 + ((bit_index % 16) < 8 ? bit_index % 16 : bit_index % 16 + 1);
	endfunction

	// the 36-bit mode's word at AD[13:5]: two 18-bit words, the even one its low half (Yosys's INIT
	// and INITVAL layout of a 36-bit memory)
	function [35:0] read(input integer width, input [13:0] ad);
		integer i, k;
		begin
			read = 36'h0;
			if (width == 36) read = {mem[{ad[13:5], 1'b1}], mem[{ad[13:5], 1'b0}]};
			else if (width == 18) read[17:0] = mem[ad[13:4]];
			else if (width == 9) read[8:0] = ad[3] ? mem[ad[13:4]][17:9] : mem[ad[13:4]][8:0];
			else for (i = 0; i < width; i = i + 1) begin
				k = narrow_bit((ad >> (width == 4 ? 2 : width == 2 ? 1 : 0)) * width + i);
				read[i] = mem[k / 18][k % 18];
			end
		end
	endfunction

	// the 36-bit mode writes its four 9-bit bytes where AD[3:0] enable them
	task write(input integer width, input [13:0] ad, input [35:0] di);
		integer i, k;
		begin
			if (width == 36) begin
				if (ad[0]) mem[{ad[13:5], 1'b0}][8:0] = di[8:0];
				if (ad[1]) mem[{ad[13:5], 1'b0}][17:9] = di[17:9];
				if (ad[2]) mem[{ad[13:5], 1'b1}][8:0] = di[26:18];
				if (ad[3]) mem[{ad[13:5], 1'b1}][17:9] = di[35:27];
			end else if (width == 18) begin
				if (ad[0]) mem[ad[13:4]][8:0] = di[8:0];
				if (ad[1]) mem[ad[13:4]][17:9] = di[17:9];
			end else if (width == 9) begin
				if (ad[3]) mem[ad[13:4]][17:9] = di[8:0];
				else mem[ad[13:4]][8:0] = di[8:0];
			end else for (i = 0; i < width; i = i + 1) begin
				k = narrow_bit((ad >> (width == 4 ? 2 : width == 2 ? 1 : 0)) * width + i);
				mem[k / 18][k % 18] = di[i];
			end
		end
	endtask

	// The 36-bit pseudo dual port mode (TN1264's PDPW16KD, which Yosys writes as a DP16KD with
	// DATA_WIDTH_A 36): port A only writes, the 36-bit word on DIA (low half) and DIB (high half), its
	// four bytes enabled by ADA[3:0] (WEA high), at ADA[13:5]; port B only reads, at DATA_WIDTH_B: in
	// 36 bits DOA the low half and DOB the high, in 18 bits and below on DOB as in the other modes.
	localparam WIDE_WRITE = DATA_WIDTH_A == 36;
	localparam WIDE_READ = DATA_WIDTH_B == 36;

	wire [17:0] di_A = {pin(DIA17MUX, DIA17), pin(DIA16MUX, DIA16), pin(DIA15MUX, DIA15), pin(DIA14MUX, DIA14), pin(DIA13MUX, DIA13), pin(DIA12MUX, DIA12), pin(DIA11MUX, DIA11), pin(DIA10MUX, DIA10), pin(DIA9MUX, DIA9), pin(DIA8MUX, DIA8), pin(DIA7MUX, DIA7), pin(DIA6MUX, DIA6), pin(DIA5MUX, DIA5), pin(DIA4MUX, DIA4), pin(DIA3MUX, DIA3), pin(DIA2MUX, DIA2), pin(DIA1MUX, DIA1), pin(DIA0MUX, DIA0)};
	wire [17:0] di_B = {pin(DIB17MUX, DIB17), pin(DIB16MUX, DIB16), pin(DIB15MUX, DIB15), pin(DIB14MUX, DIB14), pin(DIB13MUX, DIB13), pin(DIB12MUX, DIB12), pin(DIB11MUX, DIB11), pin(DIB10MUX, DIB10), pin(DIB9MUX, DIB9), pin(DIB8MUX, DIB8), pin(DIB7MUX, DIB7), pin(DIB6MUX, DIB6), pin(DIB5MUX, DIB5), pin(DIB4MUX, DIB4), pin(DIB3MUX, DIB3), pin(DIB2MUX, DIB2), pin(DIB1MUX, DIB1), pin(DIB0MUX, DIB0)};
	wire [35:0] wide_di = {di_B, di_A};

	// port A
	wire [13:0] ad_A = {pin(ADA13MUX, ADA13), pin(ADA12MUX, ADA12), pin(ADA11MUX, ADA11), pin(ADA10MUX, ADA10), pin(ADA9MUX, ADA9), pin(ADA8MUX, ADA8), pin(ADA7MUX, ADA7), pin(ADA6MUX, ADA6), pin(ADA5MUX, ADA5), pin(ADA4MUX, ADA4), pin(ADA3MUX, ADA3), pin(ADA2MUX, ADA2), pin(ADA1MUX, ADA1), pin(ADA0MUX, ADA0)};
	wire clk_A = (CLKAMUX == "INV") ? ~CLKA : CLKA;
	wire selected_A = {pin(CSA2MUX, CSA2), pin(CSA1MUX, CSA1), pin(CSA0MUX, CSA0)} == decode(CSDECODE_A);
	wire ce_A = pin(CEAMUX, CEA), oce_A = pin(OCEAMUX, OCEA), we_A = pin(WEAMUX, WEA), rst_A = pin(RSTAMUX, RSTA);
	reg [17:0] latch_A = 18'h0, out_A = 18'h0;
	wire [17:0] do_A = (REGMODE_A == "OUTREG") ? out_A : latch_A;
	wire arst_A = RESETMODE == "ASYNC" && rst_A;
	reg [35:0] old_A;
	always @(posedge clk_A or posedge arst_A) begin
		if (rst_A) begin
			latch_A <= 18'h0;
			out_A <= 18'h0;
		end else if (WIDE_WRITE) begin
			if (ce_A && selected_A && we_A) write(36, ad_A, wide_di);
		end else begin
			if (oce_A) out_A <= latch_A;
			if (ce_A && selected_A) begin
				old_A = read(DATA_WIDTH_A, ad_A);
				if (!we_A) latch_A <= old_A[17:0];
				else begin
					write(DATA_WIDTH_A, ad_A, {18'h0, di_A});
					if (WRITEMODE_A == "READBEFOREWRITE") latch_A <= old_A[17:0];
					else if (WRITEMODE_A == "WRITETHROUGH") latch_A <= read(DATA_WIDTH_A, ad_A);
				end
			end
		end
	end

	// port B (its latch and output register 36 bits wide for the 36-bit read)
	wire [13:0] ad_B = {pin(ADB13MUX, ADB13), pin(ADB12MUX, ADB12), pin(ADB11MUX, ADB11), pin(ADB10MUX, ADB10), pin(ADB9MUX, ADB9), pin(ADB8MUX, ADB8), pin(ADB7MUX, ADB7), pin(ADB6MUX, ADB6), pin(ADB5MUX, ADB5), pin(ADB4MUX, ADB4), pin(ADB3MUX, ADB3), pin(ADB2MUX, ADB2), pin(ADB1MUX, ADB1), pin(ADB0MUX, ADB0)};
	wire clk_B = (CLKBMUX == "INV") ? ~CLKB : CLKB;
	wire selected_B = {pin(CSB2MUX, CSB2), pin(CSB1MUX, CSB1), pin(CSB0MUX, CSB0)} == decode(CSDECODE_B);
	wire ce_B = pin(CEBMUX, CEB), oce_B = pin(OCEBMUX, OCEB), we_B = pin(WEBMUX, WEB), rst_B = pin(RSTBMUX, RSTB);
	reg [35:0] latch_B = 36'h0, out_B = 36'h0;
	wire [35:0] do_B = (REGMODE_B == "OUTREG") ? out_B : latch_B;
	wire arst_B = RESETMODE == "ASYNC" && rst_B;
	reg [35:0] old_B;
	always @(posedge clk_B or posedge arst_B) begin
		if (rst_B) begin
			latch_B <= 36'h0;
			out_B <= 36'h0;
		end else begin
			if (oce_B) out_B <= latch_B;
			if (ce_B && selected_B) begin
				old_B = read(DATA_WIDTH_B, ad_B);
				if (!we_B || WIDE_WRITE) latch_B <= old_B;
				else begin
					write(DATA_WIDTH_B, ad_B, {18'h0, di_B});
					if (WRITEMODE_B == "READBEFOREWRITE") latch_B <= old_B;
					else if (WRITEMODE_B == "WRITETHROUGH") latch_B <= read(DATA_WIDTH_B, ad_B);
				end
			end
		end
	end

	assign {DOA17, DOA16, DOA15, DOA14, DOA13, DOA12, DOA11, DOA10, DOA9, DOA8, DOA7, DOA6, DOA5, DOA4, DOA3, DOA2, DOA1, DOA0} = WIDE_READ ? do_B[17:0] : do_A;
	assign {DOB17, DOB16, DOB15, DOB14, DOB13, DOB12, DOB11, DOB10, DOB9, DOB8, DOB7, DOB6, DOB5, DOB4, DOB3, DOB2, DOB1, DOB0} = WIDE_READ ? do_B[35:18] : do_B[17:0];

	// a mode the silicon lacks or this model does not simulate stops the simulation at its start
	// rather than being simulated wrongly: the 36-bit mode reads only on port B and writes only on A
	generate
		if ((DATA_WIDTH_A != 1 && DATA_WIDTH_A != 2 && DATA_WIDTH_A != 4 && DATA_WIDTH_A != 9 && DATA_WIDTH_A != 18 && DATA_WIDTH_A != 36) ||
		    (DATA_WIDTH_B != 1 && DATA_WIDTH_B != 2 && DATA_WIDTH_B != 4 && DATA_WIDTH_B != 9 && DATA_WIDTH_B != 18 && DATA_WIDTH_B != 36) ||
		    (WIDE_READ && !WIDE_WRITE))
			initial $fatal(1, "DP16KD: the modes are 1, 2, 4, 9 and 18 bits on each port, and 36 bits written on A");
	endgenerate
	always @*
		if (WIDE_WRITE && we_B && ce_B && selected_B)
			$fatal(1, "DP16KD: port B does not write in the 36-bit mode");
endmodule


// The global clock buffer nextpnr inserts on a clock net (CE high: the clock passes).
module DCCA(input CLKI, input CE, output CLKO);
	assign CLKO = CLKI & CE;
endmodule

// A routed netlist's LUT cell (nextpnr's TRELLIS_COMB, which netlist.py renames to this). Yosys's model
// of TRELLIS_COMB declares the carry out of its CCU2 mode as a wire local to its generate block, so
// that the cell's FCO output is never driven and a carry chain does not carry; and its DPRAM mode
// reads the INITVAL that nextpnr permuted into the LUT's order at the unpermuted address. This is the
// cell's LOGIC, CCU2 and DPRAM modes.
//
// DPRAM: one bit of a TRELLIS_DPR16X4 (nextpnr's dram_to_comb): its sixteen bits are the LUT's, read
// through the LUT's inputs (RAD[0..3] on D, B, C, A, so that LUT index {D, C, B, A} is RAD
// {A, C, B, D}: INITVAL bit i holds the word at that permuted address), written at WAD[0..3]
// (WAD0..3, from the slice's TRELLIS_RAMW) with WD on a rising WCK (WCKMUX) while WRE (WREMUX).
module HWMG_TRELLIS_COMB(
	input A, B, C, D, M,
	input FCI, F1, FXA, FXB,
	input WD,
	input WAD0, WAD1, WAD2, WAD3,
	input WRE, WCK,
	output F, FCO, OFX
);
	parameter MODE = "LOGIC";
	parameter [15:0] INITVAL = 16'h0;
	parameter CCU2_INJECT1 = "NO";
	parameter WREMUX = "WRE";
	parameter WCKMUX = "WCK";
	parameter IS_Z1 = 1'b0;

	wire [15:0] bits;
	generate
		if (MODE == "DPRAM") begin: mode_dpram
			reg [15:0] ram = INITVAL;
			wire wck = WCKMUX == "INV" ? ~WCK : WCK;
			wire wre = WREMUX == "INV" ? ~WRE : WREMUX == "0" ? 1'b0 : WREMUX == "1" ? 1'b1 : WRE;
			// the LUT index of write address WAD: the inverse of the read's pin order
			always @(posedge wck)
				if (wre)
					ram[{WAD0, WAD2, WAD1, WAD3}] <= WD;
			assign bits = ram;
		end else begin: mode_lut
			assign bits = INITVAL;
		end
	endgenerate

	wire lut4 = bits[{D, C, B, A}];
	// CCU2: the LUT4 propagates the carry in, the LUT2 (the low four bits of INITVAL) generates one
	wire inject = MODE == "CCU2" && CCU2_INJECT1 == "YES";
	wire lut2 = INITVAL[{B, A}];
	assign F = MODE == "CCU2" ? lut4 ^ (inject ? 1'b0 : FCI) : lut4;
	assign FCO = MODE == "CCU2" ? (~lut4 & (inject ? 1'b0 : lut2)) | (lut4 & FCI) : 1'b0;
	// the wide mux after the slice's LUTs: PFUMX at the first (F1 is the second's F), L6MUX21 at the second
	assign OFX = IS_Z1 ? (M ? FXB : FXA) : (M ? F1 : F);
endmodule

// The write port of a slice's distributed RAM (nextpnr's TRELLIS_RAMW, in the slice after the RAM's
// two; Yosys ships no model): it passes a TRELLIS_DPR16X4's write address and data to the LUT cells in
// DPRAM mode, the pins as nextpnr's dram_to_ramw_split assigns them and its timing arcs connect them.
module TRELLIS_RAMW(
	input A0, B0, C0, D0, A1, B1, C1, D1,
	output WADO0, WADO1, WADO2, WADO3, WDO0, WDO1, WDO2, WDO3
);
	assign {WADO3, WADO2, WADO1, WADO0} = {A0, C0, B0, D0};
	assign {WDO3, WDO2, WDO1, WDO0} = {B1, D1, A1, C1};
endmodule

// The ECP5's 18x18 multiplier (a black box in Yosys's models) in the form Yosys's DSP mapping gives
// it: every register bypassed (REG_*_CLK "NONE", the default), the operands from the A and B pins
// (SOURCEA, SOURCEB low: no shift-register cascade), signed as SIGNEDA and SIGNEDB say. Another
// form stops the simulation at its start rather than being simulated wrongly.
module MULT18X18D(
	input A17, A16, A15, A14, A13, A12, A11, A10, A9, A8, A7, A6, A5, A4, A3, A2, A1, A0,
	input B17, B16, B15, B14, B13, B12, B11, B10, B9, B8, B7, B6, B5, B4, B3, B2, B1, B0,
	input C17, C16, C15, C14, C13, C12, C11, C10, C9, C8, C7, C6, C5, C4, C3, C2, C1, C0,
	input SIGNEDA, SIGNEDB, SOURCEA, SOURCEB,
	input CLK3, CLK2, CLK1, CLK0, CE3, CE2, CE1, CE0, RST3, RST2, RST1, RST0,
	output P35, P34, P33, P32, P31, P30, P29, P28, P27, P26, P25, P24, P23, P22, P21, P20, P19, P18, P17, P16, P15, P14, P13, P12, P11, P10, P9, P8, P7, P6, P5, P4, P3, P2, P1, P0,
	output SIGNEDP
);
	parameter REG_INPUTA_CLK = "NONE";
	parameter REG_INPUTA_CE = "CE0";
	parameter REG_INPUTA_RST = "RST0";
	parameter REG_INPUTB_CLK = "NONE";
	parameter REG_INPUTB_CE = "CE0";
	parameter REG_INPUTB_RST = "RST0";
	parameter REG_INPUTC_CLK = "NONE";
	parameter REG_INPUTC_CE = "CE0";
	parameter REG_INPUTC_RST = "RST0";
	parameter REG_PIPELINE_CLK = "NONE";
	parameter REG_PIPELINE_CE = "CE0";
	parameter REG_PIPELINE_RST = "RST0";
	parameter REG_OUTPUT_CLK = "NONE";
	parameter REG_OUTPUT_CE = "CE0";
	parameter REG_OUTPUT_RST = "RST0";
	parameter CLK0_DIV = "ENABLED";
	parameter CLK1_DIV = "ENABLED";
	parameter CLK2_DIV = "ENABLED";
	parameter CLK3_DIV = "ENABLED";
	parameter HIGHSPEED_CLK = "NONE";
	parameter GSR = "ENABLED";
	parameter CAS_MATCH_REG = "FALSE";
	parameter SOURCEB_MODE = "B_SHIFT";
	parameter MULT_BYPASS = "DISABLED";
	parameter RESETMODE = "SYNC";

	generate
		if (REG_INPUTA_CLK != "NONE" || REG_INPUTB_CLK != "NONE" || REG_INPUTC_CLK != "NONE" ||
		    REG_PIPELINE_CLK != "NONE" || REG_OUTPUT_CLK != "NONE" || MULT_BYPASS != "DISABLED")
			initial $fatal(1, "MULT18X18D: only the unregistered multiplier is modelled");
	endgenerate
	always @*
		if (SOURCEA || SOURCEB)
			$fatal(1, "MULT18X18D: the shift-register operands are not modelled");

	wire [17:0] a = {A17, A16, A15, A14, A13, A12, A11, A10, A9, A8, A7, A6, A5, A4, A3, A2, A1, A0};
	wire [17:0] b = {B17, B16, B15, B14, B13, B12, B11, B10, B9, B8, B7, B6, B5, B4, B3, B2, B1, B0};
	// each operand widened to 36 bits by its sign bit where it is signed
	wire [35:0] product = {{18{SIGNEDA & a[17]}}, a} * {{18{SIGNEDB & b[17]}}, b};
	assign {P35, P34, P33, P32, P31, P30, P29, P28, P27, P26, P25, P24, P23, P22, P21, P20, P19, P18, P17, P16, P15, P14, P13, P12, P11, P10, P9, P8, P7, P6, P5, P4, P3, P2, P1, P0} = product;
	assign SIGNEDP = SIGNEDA | SIGNEDB;
endmodule
