/*
	The SDK's firmware-update module ("ota": ESP32's esp_ota_* calls; ota-none.ts on the
	simulator) under a name of ours with a declaration beside it (firmware.d.ts).
*/
import OTA from "ota";

export default OTA;
