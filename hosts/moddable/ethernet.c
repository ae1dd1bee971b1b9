/*
	Wired bring-up for the ESP32: one esp_eth driver, an esp_netif with the default
	Ethernet key ("ETH_DEF", which the SDK's Net.get("IP", "ethernet") reads) and DHCP.

	Two MACs, chosen by sdkconfig:
	- CONFIG_ETH_USE_OPENETH: the OpenCores MAC that QEMU's esp32 machine emulates
	  (-nic user,model=open_eth). The emulator variant.
	- otherwise the ESP32's internal EMAC over RMII with an IEEE 802.3 PHY (LAN8720 on
	  WT32-ETH01 and Olimex ESP32-POE). ESP-IDF 6.0 ships only the generic PHY driver,
	  which covers the LAN8720's standard registers. Pins and PHY address come from the
	  manifest's "defines": { "lwar": { "eth": { ... } } }.

	start() returns 0, or the esp_err_t of the first step that failed; the address
	arrives later, through DHCP. linked() tells whether the PHY reports a link.
*/

#include "xsmc.h"
#include "xsHost.h"
#include "mc.defines.h"

#include "esp_eth.h"
#include "esp_log.h"
#include "esp_event.h"
#include "esp_netif.h"
#include "driver/gpio.h"
#include "freertos/FreeRTOS.h"
#include "freertos/task.h"

#ifndef MODDEF_LWAR_ETH_PHY_ADDRESS
	#define MODDEF_LWAR_ETH_PHY_ADDRESS (1)
#endif
#ifndef MODDEF_LWAR_ETH_PHY_RESET
	#define MODDEF_LWAR_ETH_PHY_RESET (-1)
#endif
#ifndef MODDEF_LWAR_ETH_PHY_POWER
	#define MODDEF_LWAR_ETH_PHY_POWER (16)
#endif
#ifndef MODDEF_LWAR_ETH_MDC
	#define MODDEF_LWAR_ETH_MDC (23)
#endif
#ifndef MODDEF_LWAR_ETH_MDIO
	#define MODDEF_LWAR_ETH_MDIO (18)
#endif
#ifndef MODDEF_LWAR_ETH_CLOCK_OUT
	#define MODDEF_LWAR_ETH_CLOCK_OUT (0)
#endif
#ifndef MODDEF_LWAR_ETH_CLOCK_GPIO
	#define MODDEF_LWAR_ETH_CLOCK_GPIO (0)
#endif

static esp_eth_handle_t gEth = NULL;
static volatile uint8_t gLinked = 0;

static void onEthernet(void *arg, esp_event_base_t base, int32_t id, void *data)
{
	if (ETHERNET_EVENT_CONNECTED == id)
		gLinked = 1;
	else if ((ETHERNET_EVENT_DISCONNECTED == id) || (ETHERNET_EVENT_STOP == id))
		gLinked = 0;
}

static esp_err_t bringUp(void)
{
	esp_err_t err = esp_netif_init();
	if (ESP_OK != err) return err;
	err = esp_event_loop_create_default();
	if ((ESP_OK != err) && (ESP_ERR_INVALID_STATE != err)) return err;	// INVALID_STATE: it exists already

	esp_netif_config_t netifConfig = ESP_NETIF_DEFAULT_ETH();
	esp_netif_t *netif = esp_netif_new(&netifConfig);
	if (NULL == netif) return ESP_ERR_NO_MEM;

	eth_mac_config_t macConfig = ETH_MAC_DEFAULT_CONFIG();
	eth_phy_config_t phyConfig = ETH_PHY_DEFAULT_CONFIG();
	esp_eth_mac_t *mac;
#if CONFIG_ETH_USE_OPENETH
	phyConfig.phy_addr = ESP_ETH_PHY_ADDR_AUTO;
	phyConfig.reset_gpio_num = -1;
	phyConfig.autonego_timeout_ms = 100;
	mac = esp_eth_mac_new_openeth(&macConfig);
	// Under a flood the emulated MAC warns of every frame it drops: keep the UART for the app.
	esp_log_level_set("opencores.emac", ESP_LOG_ERROR);
#else
	if (MODDEF_LWAR_ETH_PHY_POWER >= 0) {	// boards that gate the PHY's oscillator with a pin
		gpio_reset_pin(MODDEF_LWAR_ETH_PHY_POWER);
		gpio_set_direction(MODDEF_LWAR_ETH_PHY_POWER, GPIO_MODE_OUTPUT);
		gpio_set_level(MODDEF_LWAR_ETH_PHY_POWER, 1);
		vTaskDelay(pdMS_TO_TICKS(10));
	}
	eth_esp32_emac_config_t emacConfig = ETH_ESP32_EMAC_DEFAULT_CONFIG();
	emacConfig.smi_gpio.mdc_num = MODDEF_LWAR_ETH_MDC;
	emacConfig.smi_gpio.mdio_num = MODDEF_LWAR_ETH_MDIO;
	emacConfig.clock_config.rmii.clock_mode = MODDEF_LWAR_ETH_CLOCK_OUT ? EMAC_CLK_OUT : EMAC_CLK_EXT_IN;
	emacConfig.clock_config.rmii.clock_gpio = MODDEF_LWAR_ETH_CLOCK_GPIO;
	phyConfig.phy_addr = MODDEF_LWAR_ETH_PHY_ADDRESS;
	phyConfig.reset_gpio_num = MODDEF_LWAR_ETH_PHY_RESET;
	mac = esp_eth_mac_new_esp32(&emacConfig, &macConfig);
#endif
	if (NULL == mac) return ESP_ERR_NOT_FOUND;
	esp_eth_phy_t *phy = esp_eth_phy_new_generic(&phyConfig);
	if (NULL == phy) return ESP_ERR_NOT_FOUND;

	esp_eth_config_t config = ETH_DEFAULT_CONFIG(mac, phy);
	err = esp_eth_driver_install(&config, &gEth);
	if (ESP_OK != err) return err;
	err = esp_netif_attach(netif, esp_eth_new_netif_glue(gEth));
	if (ESP_OK != err) return err;
	err = esp_event_handler_register(ETH_EVENT, ESP_EVENT_ANY_ID, onEthernet, NULL);
	if (ESP_OK != err) return err;
	return esp_eth_start(gEth);
}

void xs_lwar_eth_start(xsMachine *the)
{
	if (NULL != gEth) {
		xsmcSetInteger(xsResult, 0);
		return;
	}
	xsmcSetInteger(xsResult, bringUp());
}

void xs_lwar_eth_linked(xsMachine *the)
{
	xsmcSetBoolean(xsResult, gLinked);
}

void xs_lwar_eth_driver(xsMachine *the)
{
#if CONFIG_ETH_USE_OPENETH
	xsmcSetString(xsResult, "open_eth (emulator)");
#else
	xsmcSetString(xsResult, "internal EMAC, IEEE 802.3 PHY");
#endif
}
