/**
 * Turn Wi-Fi modem sleep off (ESP32). Returns true when the driver accepted it; false on
 * the simulator, or when Wi-Fi is not initialised yet.
 */
export default function disablePowerSave(): boolean;
