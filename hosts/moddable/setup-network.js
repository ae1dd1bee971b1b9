/*
	Replaces the SDK's `setup/network` in the Wi-Fi build. The SDK's joins the build's `ssid`
	before main runs and waits for an address for good; the board joins the network of its
	stored settings itself instead, and falls back to its access point (network-wifi.ts).
	JavaScript, not TypeScript: mcconfig takes the first source of a module name among its
	JavaScript files, and this manifest comes before the SDK's (manifest.json's order).
*/
export default function (done) {
	done();
}
