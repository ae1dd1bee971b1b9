/*
	Turns Wi-Fi modem sleep off on ESP32 so the station answers every packet at once
	instead of at the next DTIM beacon. A no-op that returns false elsewhere.
*/

export default function disablePowerSave() @ "xs_lwar_wifi_power_save_off";
