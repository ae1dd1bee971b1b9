/*
	ESP-IDF starts a station with WIFI_PS_MIN_MODEM: the radio sleeps between DTIM
	beacons, which adds up to a beacon interval (~100 ms) of latency to packets sent to
	the device. No Moddable JavaScript API and no sdkconfig option changes that, so this
	calls esp_wifi_set_ps directly. It must run after Wi-Fi has been initialised.
*/

#include "xsmc.h"

#if ESP32
	#include "esp_wifi.h"
#endif

void xs_lwar_wifi_power_save_off(xsMachine *the)
{
#if ESP32
	xsmcSetBoolean(xsResult, ESP_OK == esp_wifi_set_ps(WIFI_PS_NONE));
#else
	xsmcSetBoolean(xsResult, 0);
#endif
}
