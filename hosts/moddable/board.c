/*
	What the board knows of its own life, and what keeps it alive (ESP32; neutral values on
	the simulator):
	- why it last reset (esp_reset_reason) and how many times it has booted (a count kept
	  in NVS, namespace "lwar", key "boots", written once per boot);
	- a task watchdog on the XS task and on lwIP's thread: each must check in within the
	  timeout or the board panics, and a panic reboots it (sdkconfig: PANIC_PRINT_REBOOT).
	  The XS task checks in with feed() from a Timer; lwIP's thread from a timer of its own
	  (sys_timeout), so a wedge of either is caught;
	- the last panic's core dump, kept in the "coredump" flash partition, to read out over
	  HTTP (/coredump) and erase.
	- crash(kind), for the emulator's torture test only (main.ts serves it when the
	  "crashRoute" setting is on): a panic, or a wedged XS task;
	- updates over the air: which app slot runs, whether the last update was rolled back,
	  and marking a new image good once it serves (ESP-IDF's app rollback: an image that
	  reboots before that is abandoned by the bootloader for the previous one);
	- restart(), and a button's level (the BOOT button, GPIO 0, for a factory reset).
*/

#include "xsmc.h"
#include "xsHost.h"

#if ESP32
	#include "esp_system.h"
	#include "esp_task_wdt.h"
	#include "esp_partition.h"
	#include "lwip/tcpip.h"
	#include "lwip/timeouts.h"
	#include "soc/timer_group_struct.h"
	#include "app_update/include/esp_ota_ops.h"
	#include "driver/gpio.h"

	/*
		Moddable's build gives app C files a fixed list of ESP-IDF include folders, without
		espcoredump's and nvs_flash's: their few functions used here, as ESP-IDF 6.0 declares
		them (esp_core_dump.h, nvs.h). The manifest's "dependency" links the components.
	*/
	typedef uint32_t nvs_handle_t;
	typedef enum { NVS_READONLY, NVS_READWRITE } nvs_open_mode_t;
	esp_err_t nvs_open(const char *namespace_name, nvs_open_mode_t open_mode, nvs_handle_t *out_handle);
	esp_err_t nvs_get_u32(nvs_handle_t handle, const char *key, uint32_t *out_value);
	esp_err_t nvs_set_u32(nvs_handle_t handle, const char *key, uint32_t value);
	esp_err_t nvs_commit(nvs_handle_t handle);
	void nvs_close(nvs_handle_t handle);
	esp_err_t esp_core_dump_image_get(size_t *out_addr, size_t *out_size);
	esp_err_t esp_core_dump_image_erase(void);
#endif

/* resetReason(): esp_reset_reason_t's value (0 unknown, 1 power on, 3 software, 4 panic, 5 interrupt watchdog, 6 task watchdog, 7 other watchdog, 9 brownout...); -1 on the simulator. */
void xs_lwar_board_reset_reason(xsMachine *the)
{
#if ESP32
	xsmcSetInteger(xsResult, esp_reset_reason());
#else
	xsmcSetInteger(xsResult, -1);
#endif
}

/* bootCount(): this boot's number, counted in NVS (1 the first time; 0 if NVS cannot be used). Call once. */
void xs_lwar_board_boot_count(xsMachine *the)
{
	uint32_t boots = 0;
#if ESP32
	nvs_handle_t handle;
	if (ESP_OK == nvs_open("lwar", NVS_READWRITE, &handle)) {
		if (ESP_OK != nvs_get_u32(handle, "boots", &boots))
			boots = 0;
		boots += 1;
		nvs_set_u32(handle, "boots", boots);
		nvs_commit(handle);
		nvs_close(handle);
	}
#else
	boots = 1;
#endif
	xsmcSetInteger(xsResult, boots);
}

#if ESP32
static uint32_t gLwipFeedMs = 1000;

static void feedLwip(void *arg)
{
	esp_task_wdt_reset();
	sys_timeout(gLwipFeedMs, feedLwip, NULL);
}

static void watchLwip(void *arg)
{
	if (ESP_OK == esp_task_wdt_add(NULL))
		sys_timeout(gLwipFeedMs, feedLwip, NULL);
}
#endif

#if ESP32
/*
	Timer group 0's watchdog (the task watchdog's timer) in a known state before the task
	watchdog takes it: off, its interrupt disabled and cleared. QEMU's esp32 machine keeps
	this timer across a software reset, so after a panic the interrupt of the previous boot's
	watchdog is still pending and fires as soon as esp_task_wdt_init allocates it, before the
	watchdog's state exists (a LoadProhibited in task_wdt_isr). An ESP32 resets the timer
	groups in esp_restart; there this changes nothing. sdkconfig: ESP_TASK_WDT_INIT=n, so
	that ESP-IDF does not initialise the watchdog before this has run.
*/
static void quietTimerGroupWatchdog(void)
{
	TIMERG0.wdtwprotect.val = 0x50D83AA1;	// unlock
	TIMERG0.wdtconfig0.val = 0;
	TIMERG0.int_ena_timers.wdt_int_ena = 0;
	TIMERG0.int_clr_timers.wdt_int_clr = 1;
	TIMERG0.wdtfeed.val = 1;
	TIMERG0.wdtwprotect.val = 0;			// lock
}
#endif

/* watchdog(seconds): watch the calling (XS) task and lwIP's thread; true if it is on. */
void xs_lwar_board_watchdog(xsMachine *the)
{
	int seconds = xsmcToInteger(xsArg(0));
	if ((seconds < 2) || (seconds > 60))
		xsRangeError("watchdog: %d s (2 to 60)", seconds);
#if ESP32
	esp_task_wdt_config_t config = {
		.timeout_ms = seconds * 1000,
		.idle_core_mask = 0,
		.trigger_panic = true,
	};
	esp_err_t err = esp_task_wdt_reconfigure(&config);
	if (ESP_ERR_INVALID_STATE == err) {
		quietTimerGroupWatchdog();
		err = esp_task_wdt_init(&config);
	}
	// Moddable's loop task subscribes itself when the watchdog is already running (not with
	// ESP_TASK_WDT_INIT=n), and feeds it as it services messages: "already subscribed"
	// (ESP_ERR_INVALID_ARG) is as good.
	esp_err_t added = (ESP_OK == err) ? esp_task_wdt_add(NULL) : err;
	if ((ESP_OK != added) && (ESP_ERR_INVALID_ARG != added)) {
		xsmcSetFalse(xsResult);
		return;
	}
	gLwipFeedMs = (seconds * 1000) / 4;
	tcpip_callback(watchLwip, NULL);
	xsmcSetTrue(xsResult);
#else
	xsmcSetFalse(xsResult);
#endif
}

/* feed(): the XS task checks in with the watchdog. */
void xs_lwar_board_feed(xsMachine *the)
{
#if ESP32
	esp_task_wdt_reset();
#endif
}

/* coredumpSize(): bytes of the core dump in flash; 0 when there is none (or it does not check). */
void xs_lwar_board_coredump_size(xsMachine *the)
{
#if ESP32
	size_t address, size;
	if (ESP_OK == esp_core_dump_image_get(&address, &size)) {
		xsmcSetInteger(xsResult, size);
		return;
	}
#endif
	xsmcSetInteger(xsResult, 0);
}

/* coredumpRead(offset, buffer): fill `buffer` (a Uint8Array) from the core dump at `offset`; bytes read. */
void xs_lwar_board_coredump_read(xsMachine *the)
{
	int offset = xsmcToInteger(xsArg(0));
	void *data;
	xsUnsignedValue size;
	xsmcGetBufferWritable(xsArg(1), &data, &size);
	int result = 0;
#if ESP32
	size_t address, total;
	if ((offset >= 0) && (ESP_OK == esp_core_dump_image_get(&address, &total)) && ((size_t)offset < total)) {
		uint32_t n = total - offset;
		if (n > size) n = size;
		const esp_partition_t *part = esp_partition_find_first(ESP_PARTITION_TYPE_DATA, ESP_PARTITION_SUBTYPE_DATA_COREDUMP, NULL);
		if (part && (ESP_OK == esp_partition_read(part, (address - part->address) + offset, data, n)))
			result = n;
	}
#endif
	xsmcSetInteger(xsResult, result);
}

/* coredumpErase(): forget the core dump. */
void xs_lwar_board_coredump_erase(xsMachine *the)
{
#if ESP32
	esp_core_dump_image_erase();
#endif
}

/* crash(kind): 1 a panic (a store to address 0), 2 the XS task wedged (it never returns). For the emulator's torture test. */
void xs_lwar_board_crash(xsMachine *the)
{
	int kind = xsmcToInteger(xsArg(0));
#if ESP32
	if (1 == kind)
		*(volatile uint32_t *)0 = 0x1ead;
	else if (2 == kind)
		for (;;) ;
#endif
	(void)kind;
}

/* restart(): reboot the board now (the simulator: nothing). */
void xs_lwar_board_restart(xsMachine *the)
{
#if ESP32
	esp_restart();
#endif
}

/*
	markValid(): this image serves: keep it. 1 when it was on trial (the first boot after an
	update) and is now kept, 0 when it was kept already, -1 when it cannot say (the simulator,
	or an error).
*/
void xs_lwar_board_mark_valid(xsMachine *the)
{
	int result = -1;
#if ESP32
	esp_ota_img_states_t state;
	const esp_partition_t *running = esp_ota_get_running_partition();
	if (running && (ESP_OK == esp_ota_get_state_partition(running, &state))) {
		if (ESP_OTA_IMG_PENDING_VERIFY == state)
			result = (ESP_OK == esp_ota_mark_app_valid_cancel_rollback()) ? 1 : -1;
		else
			result = 0;
	}
	else if (running)
		result = 0;		// flashed over the wire, never updated: no state to keep
#endif
	xsmcSetInteger(xsResult, result);
}

/* appSlot(): the label of the app slot that runs ("ota_0"); "" on the simulator. */
void xs_lwar_board_app_slot(xsMachine *the)
{
#if ESP32
	const esp_partition_t *running = esp_ota_get_running_partition();
	xsmcSetString(xsResult, running ? (char *)running->label : "");
#else
	xsmcSetString(xsResult, "");
#endif
}

/* rolledBack(): the label of an app slot the bootloader abandoned (an update that did not come up); "" when none. */
void xs_lwar_board_rolled_back(xsMachine *the)
{
#if ESP32
	const esp_partition_t *invalid = esp_ota_get_last_invalid_partition();
	xsmcSetString(xsResult, invalid ? (char *)invalid->label : "");
#else
	xsmcSetString(xsResult, "");
#endif
}

/* updateRoom(): bytes the next app slot holds (the largest image an update may bring); 0 when there is none. */
void xs_lwar_board_update_room(xsMachine *the)
{
#if ESP32
	const esp_partition_t *next = esp_ota_get_next_update_partition(NULL);
	xsmcSetInteger(xsResult, next ? next->size : 0);
#else
	xsmcSetInteger(xsResult, 0);
#endif
}

/* buttonDown(pin): 1 while the button on `pin` (to ground, with the pull-up on) is held; 0 when not, or no such pin. */
void xs_lwar_board_button_down(xsMachine *the)
{
	int pin = xsmcToInteger(xsArg(0));
	int down = 0;
#if ESP32
	static int configured = -1;
	if ((pin >= 0) && (pin < 40)) {
		if (configured != pin) {
			gpio_reset_pin(pin);
			gpio_set_direction(pin, GPIO_MODE_INPUT);
			gpio_set_pull_mode(pin, GPIO_PULLUP_ONLY);
			configured = pin;
		}
		down = (0 == gpio_get_level(pin));
	}
#endif
	(void)pin;
	xsmcSetInteger(xsResult, down);
}

