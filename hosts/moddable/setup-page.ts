/**
 * The settings page, as one constant string: on the board it stays in flash, and serving it
 * takes nothing from the XS heaps (whose chunk heap has a few KB to spare while a full
 * match is played). It asks `/settings/values` for the fields (modules/board-settings.ts,
 * with their current values; a password only says whether one is set), builds the form
 * from them, and sends it back as a form to `/settings`; a file goes to `/update`, and
 * the factory reset to `/reset`. Every reply is a short text it shows as it is.
 */
export const SETTINGS_PAGE = `<!doctype html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>lwar-xs settings</title>
<style>body{font:16px system-ui,sans-serif;max-width:34em;margin:1em auto;padding:0 1em;background:#0b0d17;color:#dde}a,button{color:#9cf}button{background:#1b2136;border:1px solid #9cf;padding:.5em 1em;font-size:1em}input{width:100%;box-sizing:border-box;padding:.4em;margin:.2em 0 .2em;font-size:1em}label{display:block;margin-bottom:.8em}small{color:#99a}.bad{color:#f88;white-space:pre-wrap}.ok{color:#8f8;white-space:pre-wrap}</style></head>
<body><h1 id="title">lwar-xs settings</h1><p id="note" class="bad"></p><form id="form"></form><p id="result"></p>
<div id="more" hidden><h2>Update</h2><p>Running version <b id="version"></b>. Choose a firmware file (the app image: <code>xs_esp32.bin</code> of a build):</p><input type="file" id="image" accept=".bin"><button id="send">Update</button><p id="progress"></p>
<h2>Factory reset</h2><p><button id="reset">Forget every setting and the admin password</button></p></div><p><a href="/">Play</a></p>
<script>
var $=function(i){return document.getElementById(i)};
function show(el,ok,text){el.className=ok?"ok":"bad";el.textContent=text}
function field(f){var l=document.createElement("label"),i=document.createElement("input"),s=document.createElement("small");l.append(f.label,i,s);i.name=f.name;s.textContent=f.help;
if(f.kind==="secret"){i.type="password";i.autocomplete="new-password";i.placeholder=f.set?"unchanged":"none";if(f.set){var c=document.createElement("input");c.type="checkbox";c.name="clear-"+f.name;c.value="1";c.style.width="auto";s.append(" \\u00b7 ",c," clear it")}}
else{i.value=f.value;if(f.kind==="int")i.inputMode="numeric"}return l}
fetch("/settings/values").then(function(r){if(!r.ok)throw new Error(r.status+" "+r.statusText);return r.json()}).then(function(v){
var form=$("form");$("version").textContent=v.version;$("note").textContent=v.note;if(v.first)$("title").textContent="Set up lwar-xs";
v.fields.forEach(function(f){form.append(field(f))});
form.append(field({name:"admin",label:v.first?"Admin password (needed: it guards these settings and updates)":"New admin password",help:"8 to 64 characters",kind:"secret",set:!v.first}));
form.append(field({name:"admin2",label:"The admin password again",help:"",kind:"secret",set:false}));
var b=document.createElement("button");b.textContent="Save and restart";form.append(b);$("more").hidden=v.first;
form.onsubmit=function(e){e.preventDefault();fetch("/settings",{method:"POST",body:new URLSearchParams(new FormData(form))}).then(function(r){return r.text().then(function(t){show($("result"),r.ok,t)})}).catch(function(){show($("result"),false,"the board did not answer")})}
}).catch(function(e){show($("result"),false,"could not read the settings: "+e.message)});
$("send").onclick=function(){var f=$("image").files[0];if(!f)return;var p=$("progress"),x=new XMLHttpRequest();x.open("POST","/update");x.upload.onprogress=function(e){p.textContent=Math.round(100*e.loaded/e.total)+" %"};x.onload=function(){show(p,x.status===200,x.responseText)};x.onerror=function(){show(p,false,"the board did not answer")};x.send(f)};
$("reset").onclick=function(){if(confirm("Forget every setting and the admin password?"))fetch("/reset",{method:"POST",body:"confirm=yes",headers:{"Content-Type":"application/x-www-form-urlencoded"}}).then(function(r){return r.text().then(function(t){show($("result"),r.ok,t)})})};
</script></body></html>
`;
