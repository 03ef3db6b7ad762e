#!/usr/bin/env node
var w1=Object.defineProperty;var l=(Ir,zn)=>w1(Ir,"name",{value:zn,configurable:!0});(()=>{"use strict";var Ir={},zn={};function ue(e){var t=zn[e];if(t!==void 0)return t.exports;var n=zn[e]={exports:{}},s=!0;try{Ir[e](n,n.exports,ue),s=!1}finally{s&&delete zn[e]}return n.exports}l(ue,"__nccwpck_require__"),typeof ue<"u"&&(ue.ab=__dirname+"/"),ue.n=e=>{var t=e&&e.__esModule?()=>e.default:()=>e;return ue.d(t,{a:t}),t},(()=>{var e=Object.getPrototypeOf?n=>Object.getPrototypeOf(n):n=>n.__proto__,t;ue.t=function(n,s){if(s&1&&(n=this(n)),s&8||typeof n=="object"&&n&&(s&4&&n.__esModule||s&16&&typeof n.then=="function"))return n;var i=Object.create(null);ue.r(i);var r={};t=t||[null,e({}),e([]),e(e)];for(var o=s&2&&n;typeof o=="object"&&!~t.indexOf(o);o=e(o))Object.getOwnPropertyNames(o).forEach(a=>r[a]=()=>n[a]);return r.default=()=>n,ue.d(i,r),i}})(),ue.d=(e,t)=>{for(var n in t)ue.o(t,n)&&!ue.o(e,n)&&Object.defineProperty(e,n,{enumerable:!0,get:t[n]})},ue.o=(e,t)=>Object.prototype.hasOwnProperty.call(e,t),ue.r=e=>{typeof Symbol<"u"&&Symbol.toStringTag&&Object.defineProperty(e,Symbol.toStringTag,{value:"Module"}),Object.defineProperty(e,"__esModule",{value:!0})};var lp={};class Ze extends Error{static{l(this,"errors_StepchainError")}exitCode;name="StepchainError";details;constructor(t,n){super(t),this.exitCode=n}}function cp(e){return e.replace(/([a-z0-9])([A-Z])/g,"$1_$2").toLowerCase()}l(cp,"snakeName");function bl(e){return e instanceof Ze?{ok:!1,error:{type:cp(e.name),message:e.message,exit_code:e.exitCode,...e.details===void 0?{}:{faults:e.details}}}:{ok:!1,error:{type:"internal_error",message:e instanceof Error?e.message:String(e),exit_code:1}}}l(bl,"errorDocument");class w extends Ze{static{l(this,"errors_InputError")}name="InputError";constructor(t){super(t,2)}}class N extends Ze{static{l(this,"errors_IntegrityError")}name="IntegrityError";constructor(t){super(t,1)}}function _1(e,t){return t==null?e:`${e}:${t}`}l(_1,"at");const dp={ENOSPC:"no space left on the device",EDQUOT:"disk quota exceeded",EACCES:"permission denied",EPERM:"operation not permitted",EROFS:"read-only file system",ENOENT:"no such file or directory",ENOTDIR:"a path component is not a directory",EISDIR:"is a directory",EEXIST:"already exists",EIO:"input/output error",EMFILE:"too many open files",ENFILE:"too many open files in the system",ENAMETOOLONG:"file name too long",ELOOP:"too many levels of symbolic links",EBUSY:"device or resource busy",ETXTBSY:"text file busy",EXDEV:"cross-device link",EFBIG:"file too large",ENOTEMPTY:"directory not empty",ESTALE:"stale file handle"};function W(e){if(typeof e!="object"||e===null||e instanceof Ze)return!1;const t=e.code;return typeof t=="string"&&/^E[A-Z0-9]+$/.test(t)&&typeof e.message=="string"}l(W,"isOsError");function wl(e){const t=e.code??"EIO",n=dp[t];return n===void 0?t:`${n} (${t})`}l(wl,"osCause");function X(e,t,n){const s=t??e.path??e.dest,i=n??(e.syscall===void 0?"failed":`cannot ${e.syscall}`);return new w(`${s===void 0?"":`${s}: `}${i}: ${wl(e)}`)}l(X,"osError");function _l(e){if(e instanceof Ze)return e;if(W(e))return X(e)}l(_l,"asStepchainError");const p=require("node:fs"),Ft=require("node:os"),zs=require("node:worker_threads"),D=require("node:crypto"),xe="0".repeat(64),up=/^[0-9a-f]{64}$/;function ae(e){return(0,D.createHash)("sha256").update(e).digest("hex")}l(ae,"sha256Hex");function Pe(e){return typeof e=="string"&&up.test(e)}l(Pe,"isSha256Hex");const Al=l(e=>/^[0-9a-f]{64}$/.test(e)?e:JSON.stringify(e),"hashText"),qn=Al;class hp{static{l(this,"ChainChecker")}expectedSeq=0;prevHash=xe;steps=0;check(t,n,s){n.seq!==void 0&&n.seq!==this.expectedSeq&&BigInt(n.seq)!==BigInt(this.expectedSeq)&&s.add({line:t,kind:"seq_mismatch",message:`seq ${String(n.seq)}, expected ${this.expectedSeq}`}),n.prev_hash!==void 0&&n.prev_hash!==this.prevHash&&s.add({line:t,kind:"prev_hash_mismatch",message:this.prevHash===null?`chain break: prev_hash ${qn(n.prev_hash)}, but the previous row has no step_hash string`:`chain break: prev_hash ${qn(n.prev_hash)} does not match the previous step_hash ${qn(this.prevHash)}`}),n.computedHash!==void 0&&n.step_hash!==void 0&&n.computedHash!==n.step_hash&&s.add({line:t,kind:"step_hash_mismatch",message:`field tamper: stored step_hash ${qn(n.step_hash)}, recomputed ${qn(n.computedHash)}`}),this.expectedSeq++,this.prevHash=n.step_hash??null,this.steps++}get head(){return this.steps===0?xe:this.prevHash??""}}class De{static{l(this,"JsonFloat")}value;constructor(t){this.value=t}}function qs(e){return Number.isInteger(e)||!Number.isFinite(e)||Object.is(e,-0)?new De(e):e}l(qs,"value_float");function G(e){return typeof e=="object"&&e!==null&&!Array.isArray(e)&&!(e instanceof De)&&!(e instanceof Map)}l(G,"isJsonObject");function Cr(e){if(typeof e=="number")return e;if(typeof e=="bigint")return Number(e);if(e instanceof De)return e.value}l(Cr,"numericValue");function pt(e){return typeof e=="number"&&Number.isInteger(e)||typeof e=="bigint"}l(pt,"isJsonInteger");function fp(e,t,n){t==="__proto__"?Object.defineProperty(e,t,{value:n,enumerable:!0,writable:!0,configurable:!0}):e[t]=n}l(fp,"setKey");function Jn(e){if(Number.isNaN(e))return"NaN";if(e===1/0)return"Infinity";if(e===-1/0)return"-Infinity";if(e===0)return Object.is(e,-0)?"-0.0":"0.0";const t=e<0?"-":"",n=String(Math.abs(e)),s=n.indexOf("e"),i=s<0?n:n.slice(0,s),r=s<0?0:Number(n.slice(s+1)),o=i.indexOf("."),a=o<0?i:i.slice(0,o),c=o<0?i:a+i.slice(o+1);let u=0;for(;u<c.length-1&&c.charCodeAt(u)===48;)u++;let d=c.length;for(;d>u+1&&c.charCodeAt(d-1)===48;)d--;const h=c.slice(u,d),f=a.length+r-u-1;if(f>=-4&&f<16){if(f>=0){const b=h.length>f+1?h.slice(0,f+1):h.padEnd(f+1,"0"),_=h.length>f+1?h.slice(f+1):"0";return`${t}${b}.${_}`}return`${t}0.${"0".repeat(-f-1)}${h}`}const y=h.length===1?h:`${h[0]}.${h.slice(1)}`,m=`${f<0?"-":"+"}${String(Math.abs(f)).padStart(2,"0")}`;return`${t}${y}e${m}`}l(Jn,"pythonFloatRepr");const ln=900;function kl(e,t){const n=Math.min(e.length,t.length);let s=0;for(;s<n&&e.charCodeAt(s)===t.charCodeAt(s);)s++;if(s===n)return e.length-t.length;const i=e.charCodeAt(s),r=t.charCodeAt(s);if(i<55296&&r<55296)return i-r;const o=l(a=>a>=56320&&a<=57343,"low");if(s>0&&(o(i)||o(r))){const a=e.charCodeAt(s-1);a>=55296&&a<=56319&&s--}return(e.codePointAt(s)??0)-(t.codePointAt(s)??0)}l(kl,"compareCodePoints");class mt extends Error{static{l(this,"CanonicalEncodeError")}name="CanonicalEncodeError"}const pp={34:'\\"',92:"\\\\",10:"\\n",13:"\\r",9:"\\t",8:"\\b",12:"\\f"},mp=/^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;function vl(e){if(mp.test(e))return`"${e}"`;let t='"',n=0;for(let s=0;s<e.length;s++){const i=e.charCodeAt(s);i>=32&&i<=126&&i!==34&&i!==92||(t+=e.slice(n,s),t+=pp[i]??`\\u${i.toString(16).padStart(4,"0")}`,n=s+1)}return`${t}${e.slice(n)}"`}l(vl,"encodeString");function gp(e,t){if(Number.isInteger(e))return Number.isSafeInteger(e)?String(e===0?0:e):BigInt(e).toString();if(!Number.isFinite(e)&&!t)throw new mt(`${String(e)} is not allowed in a written value (JSON has no NaN or Infinity)`);return Jn(e)}l(gp,"encodeNumber");function Ae(e,t={}){const n=t.sortKeys??!0,s=t.separators==="pretty",i=s?", ":",",r=s?": ":":",o=t.allowNonFinite??!1,a=t.maxNesting??ln,c=l(d=>{const h=d instanceof Map?[...d]:Object.entries(d);return n&&h.sort((f,y)=>kl(f[0],y[0])),h},"entriesOf"),u=l((d,h)=>{switch(typeof d){case"string":return vl(d);case"number":return gp(d,o);case"bigint":return d.toString();case"boolean":return d?"true":"false";case"object":{if(d===null)return"null";if(d instanceof De){if(!Number.isFinite(d.value)&&!o)throw new mt(`${String(d.value)} is not allowed in a written value (JSON has no NaN or Infinity)`);return Jn(d.value)}if(h>=a)throw new mt(`value nested deeper than ${a} levels`);if(Array.isArray(d)){let m="[";for(let b=0;b<d.length;b++)b>0&&(m+=i),m+=u(d[b],h+1);return`${m}]`}let f="{",y=!0;for(const[m,b]of c(d))b!==void 0&&(y||(f+=i),y=!1,f+=vl(m)+r+u(b,h+1));return`${f}}`}default:throw new mt(`a ${typeof d} has no JSON encoding`)}},"walk");return u(e,0)}l(Ae,"encode");function Kn(e){return Ae(e)}l(Kn,"canonical");function ke(e){return Ae(e,{allowNonFinite:!0})}l(ke,"encode_canonicalOfRead");function yp(e){return Ae(e,{separators:"pretty"})}l(yp,"prettySorted");function bp(e){return Ae(e,{sortKeys:!1,separators:"pretty"})}l(bp,"prettyInsertionOrder");class Ie extends Error{static{l(this,"JsonParseError")}reason;column;name="JsonParseError";constructor(t,n){super(`${t} at column ${n}`),this.reason=t,this.column=n}}function El(e,t){const n=Error.stackTraceLimit;Error.stackTraceLimit=0;try{return new Ie(e,t)}finally{Error.stackTraceLimit=n}}l(El,"parseError");const Sl=4300,$l=/-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?/y,wp=new TextDecoder("utf-8",{fatal:!0,ignoreBOM:!0});function le(e){try{return wp.decode(e)}catch{throw El("invalid UTF-8",1)}}l(le,"decodeUtf8");function ye(e,t={}){const n=t.objects==="map";let s=0;const i=e.length,r=l((f,y=s)=>{throw El(f,y+1)},"fail"),o=l(()=>{for(;s<i;){const f=e.charCodeAt(s);if(f===32||f===10||f===13||f===9)s++;else break}},"skipWs"),a=l(()=>{const f=++s;let y="",m=f;for(;;){s>=i&&r("unterminated string",f-1);const b=e.charCodeAt(s);if(b===34)return y+=e.slice(m,s),s++,y;if(b<32&&r("invalid control character in string"),b!==92){s++;continue}switch(y+=e.slice(m,s),e.charCodeAt(s+1)){case 34:y+='"';break;case 92:y+="\\";break;case 47:y+="/";break;case 98:y+="\b";break;case 102:y+="\f";break;case 110:y+=`
`;break;case 114:y+="\r";break;case 116:y+="	";break;case 117:{const k=e.slice(s+2,s+6);/^[0-9a-fA-F]{4}$/.test(k)||r("invalid \\uXXXX escape"),y+=String.fromCharCode(parseInt(k,16)),s+=4;break}default:r("invalid escape")}s+=2,m=s}},"parseString"),c=l(()=>{$l.lastIndex=s;const f=$l.exec(e);if(f===null)return r("expecting value");const y=f[0],m=s;if(s+=y.length,f[1]!==void 0||f[2]!==void 0){const k=Number(y);return Number.isInteger(k)||Object.is(k,-0)||!Number.isFinite(k)?new De(k):k}const b=y.length-(y.charCodeAt(0)===45?1:0);if(b<=15)return Number(y);b>Sl&&r(`integer of ${b} digits exceeds the ${Sl}-digit limit`,m);const _=BigInt(y);return _>=BigInt(Number.MIN_SAFE_INTEGER)&&_<=BigInt(Number.MAX_SAFE_INTEGER)?Number(_):_},"parseNumber"),u=l(f=>{o();const y=e.charCodeAt(s);switch((y===123||y===91)&&f>=ln&&r(`nested deeper than ${ln} levels`),y){case 34:return a();case 123:{s++;const m={},b=new Map;if(o(),e.charCodeAt(s)===125)return s++,n?b:m;for(;;){o(),e.charCodeAt(s)!==34&&r("expecting property name enclosed in double quotes");const _=a();o(),e.charCodeAt(s)!==58&&r("expecting ':' delimiter"),s++;const k=u(f+1);n?b.set(_,k):fp(m,_,k),o();const S=e.charCodeAt(s);if(S===44){s++;continue}if(S===125)return s++,n?b:m;r("expecting ',' delimiter")}}case 91:{s++;const m=[];if(o(),e.charCodeAt(s)===93)return s++,m;for(;;){m.push(u(f+1)),o();const b=e.charCodeAt(s);if(b===44){s++;continue}if(b===93)return s++,m;r("expecting ',' delimiter")}}case 110:return d("null",null);case 116:return d("true",!0);case 102:return d("false",!1);case 78:return d("NaN",new De(NaN));case 73:return d("Infinity",new De(1/0));case 45:return e.startsWith("-Infinity",s)?d("-Infinity",new De(-1/0)):c();default:return y>=48&&y<=57?c():r("expecting value")}},"parseValue"),d=l((f,y)=>(e.startsWith(f,s)||r("expecting value"),s+=f.length,y),"literal"),h=u(0);return o(),s<i&&r("extra data"),h}l(ye,"parse");function Yn(e,t={}){return ye(le(e),t)}l(Yn,"parseBytes");const Js=/-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?/y,xl=512,_p=4300;let j="";const Br=/"(?:[\x20\x21\x23-\x5b\x5d-\x7e]|\\["\\bfnrt]|\\u(?!00(?:0[89acd]|[2-6][0-9a-f]|7[0-9a-e]))[0-9a-f]{4})*"/y;function Il(e){return Br.lastIndex=e,Br.test(j)?Br.lastIndex:-1}l(Il,"scanString");function Cl(e){Js.lastIndex=e;const t=Js.exec(j);if(t===null)return-1;const n=t[0];return t[1]!==void 0||t[2]!==void 0?Jn(Number(n))===n?e+n.length:-1:n==="-0"||n.length>_p?-1:e+n.length}l(Cl,"scanNumber");function Ap(e,t,n,s){const i=j.slice(e+1,t-1),r=j.slice(n+1,s-1);return i.indexOf("\\")<0&&r.indexOf("\\")<0?i<r:kl(JSON.parse(`"${i}"`),JSON.parse(`"${r}"`))<0}l(Ap,"keyLess");function cn(e,t){const n=j.charCodeAt(e);switch(n){case 34:return Il(e);case 123:{if(t>xl)return-1;let s=e+1;if(j.charCodeAt(s)===125)return s+1;let i=-1,r=-1;for(;;){if(j.charCodeAt(s)!==34)return-1;const o=Il(s);if(o<0||i>=0&&!Ap(i,r,s,o)||(i=s,r=o,j.charCodeAt(o)!==58)||(s=cn(o+1,t+1),s<0))return-1;const a=j.charCodeAt(s);if(a===125)return s+1;if(a!==44)return-1;s++}}case 91:{if(t>xl)return-1;let s=e+1;if(j.charCodeAt(s)===93)return s+1;for(;;){if(s=cn(s,t+1),s<0)return-1;const i=j.charCodeAt(s);if(i===93)return s+1;if(i!==44)return-1;s++}}case 110:return j.startsWith("null",e)?e+4:-1;case 116:return j.startsWith("true",e)?e+4:-1;case 102:return j.startsWith("false",e)?e+5:-1;case 78:return j.startsWith("NaN",e)?e+3:-1;case 73:return j.startsWith("Infinity",e)?e+8:-1;case 45:return j.startsWith("-Infinity",e)?e+9:Cl(e);default:return n>=48&&n<=57?Cl(e):-1}}l(cn,"scanValue");function Ks(e){for(let t=e;t<e+64;t++){const n=j.charCodeAt(t);if(!(n>=48&&n<=57||n>=97&&n<=102))return!1}return!0}l(Ks,"hexAt");const Bl=D.hash;function kp(e){return Bl!==void 0?Bl("sha256",e,"hex"):D.createHash("sha256").update(e,"latin1").digest("hex")}l(kp,"sha256Ascii");function Or(e,t,n,s,i){j=e;const r=i===void 0?0:i.length;if(!j.startsWith('{"blob_refs":[',t))return;let o=t+14;if(j.charCodeAt(o)===93)o++;else for(;;){if(j.charCodeAt(o)!==34||!Ks(o+1)||j.charCodeAt(o+65)!==34)return Rr(i,r);i?.push(j.slice(o+1,o+65)),o+=66;const c=j.charCodeAt(o++);if(c===93)break;if(c!==44)return Rr(i,r)}let a;try{a=vp(o,n,s)}catch(c){if(!(c instanceof RangeError))throw c}return a===void 0?Rr(i,r):a}l(Or,"fastRow");function Rr(e,t){e!==void 0&&(e.length=t)}l(Rr,"dropRefs");function vp(e,t,n){if(!j.startsWith(',"input_hash":"',e)||!Ks(e+15)||j.charCodeAt(e+79)!==34)return;const s=e+1;if(e+=80,!j.startsWith(',"model":',e)||(e=cn(e+9,0),e<0||!j.startsWith(',"prev_hash":"',e)||j.charCodeAt(e+78)!==34))return;const i=j.slice(e+14,e+78);if(i!==n&&!Ks(e+14)||(e+=79,!j.startsWith(',"prompt":',e))||(e=cn(e+10,0),e<0||!j.startsWith(',"seq":',e)))return;const r=e;e+=7;const o=e;if(j.charCodeAt(e)===48)e++;else for(;e<t&&j.charCodeAt(e)>=48&&j.charCodeAt(e)<=57;)e++;if(e===o||e-o>15)return;const a=Number(j.slice(o,e));if(!j.startsWith(',"step_hash":"',e)||j.charCodeAt(e+78)!==34)return;const c=j.slice(e+14,e+78),u=e+14;if(e+=79,!j.startsWith(',"tool_call":',e))return;const d=e+1;if(e=cn(e+13,0),e<0||!j.startsWith(',"tool_result":',e)||(e=cn(e+15,0),e<0||!j.startsWith(',"ts":',e)))return;const h=e;e+=6,Js.lastIndex=e;const f=Js.exec(j);if(f===null||f[1]===void 0&&f[2]===void 0||Jn(Number(f[0]))!==f[0]||(e+=f[0].length,e!==t-1||j.charCodeAt(e)!==125))return;const y=kp(`{${j.slice(s,r)},${j.slice(d,h)}}`);if(!(c!==y&&!Ks(u)))return{seq:a,prev_hash:i,step_hash:c,computedHash:y}}l(vp,"fastRowRest");const Tr=1e3;class Ys{static{l(this,"FaultList")}cap;mayJoin;list=[];total=0;omitted=0;open=new Map;constructor(t=Tr,n=()=>!0){this.cap=t,this.mayJoin=n}add(t){const n=t.count??1;if(this.total+=n,t.line!==null){const i=this.open.get(t.kind);if(i!==void 0&&(i.last_line??i.line)+1===t.line&&this.mayJoin(i,t)){i.count=(i.count??1)+n,i.last_line=t.last_line??t.line;return}}if(this.list.length>=this.cap&&t.line!==null){this.omitted+=n,this.open.delete(t.kind);return}const s={...t};this.list.push(s),t.line!==null&&this.open.set(t.kind,s)}addOmitted(t){this.total+=t,this.omitted+=t}addAll(t){for(const n of t.list)this.add(n);t.omitted>0&&this.addOmitted(t.omitted)}}const dn={malformed_json:0,seq_mismatch:1,prev_hash_mismatch:2,step_hash_mismatch:3,non_canonical:4,head_mismatch:5,empty_journal:6};function A1(e){const t=[];let n=0;for(const s of e)if(s.line===null||s.last_line===void 0)t.push({line:s.line,kind:s.kind,at:n++});else for(let i=s.line;i<=s.last_line;i++)t.push({line:i,kind:s.kind,at:n++});return t.sort((s,i)=>(s.line??1/0)-(i.line??1/0)||dn[s.kind]-dn[i.kind]||s.at-i.at),t.map(({line:s,kind:i})=>({line:s,kind:i}))}l(A1,"expandFaults");function Ol(e){return e<=32?e===32||e>=9&&e<=13||e>=28&&e<=31:e<133?!1:e===133||e===160||e===5760||e>=8192&&e<=8202||e===8232||e===8233||e===8239||e===8287||e===12288}l(Ol,"isPyWhitespace");function un(e){let t=0,n=e.length;for(;t<n&&Ol(e.charCodeAt(t));)t++;for(;n>t&&Ol(e.charCodeAt(n-1));)n--;return t===0&&n===e.length?e:e.slice(t,n)}l(un,"pyStrip");function Vs(e,t,n,s){let i=t;for(;i<n;){const r=Tl(e,10,i,n),o=r<0?n:r;Rl(e,i,o,r>=0,s),i=o+1}}l(Vs,"forEachReferenceLine");function Rl(e,t,n,s,i){let r=0,o=t;for(;;){const a=Tl(e,13,o,n);if(a<0){if(s)i(o,n,n+1,"lf");else if(o<n)i(o,n,n,"eof");else return r;return r+1}if(a+1===n&&s)return i(o,a,n+1,"crlf"),r+1;i(o,a,a+1,"cr"),r++,o=a+1}}l(Rl,"splitSegment");function Tl(e,t,n,s){if(s-n<=32){for(let r=n;r<s;r++)if(e[r]===t)return r;return-1}const i=e.subarray(n,s).indexOf(t);return i<0?-1:n+i}l(Tl,"indexIn");function k1(e,t){let n=0;for(let s=0;s<t;s++){const i=e[s];(i===10||i===13&&!(s+1<t&&e[s+1]===10))&&n++}return n}l(k1,"countLines");const Ep=new TextDecoder("utf-8",{fatal:!1,ignoreBOM:!0}),Sp=/-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?/y,Nl=/"(?:[^"\\\x00-\x1f]|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})*"/y;function Nr(e){let t=Ep.decode(e);t.charCodeAt(0)===65279&&(t=t.slice(1)),t=un(t);let n=0;const s=t.length,i=l(()=>{for(;n<s;){const d=t.charCodeAt(n);if(d===32||d===9||d===10||d===13)n++;else break}},"ws"),r=l(d=>t.startsWith(d,n)?(n+=d.length,!0):!1,"word"),o=l(d=>(d.lastIndex=n,d.test(t)?(n=d.lastIndex,!0):!1),"sticky"),a=[],c=l(()=>{i();const d=t.charCodeAt(n);if(d===123||d===91)return a.push(d),n++,!0;if(d===34)try{return o(Nl)}catch{return!1}return d===45&&t.startsWith("-Infinity",n)?r("-Infinity"):d===45||d>=48&&d<=57?o(Sp):r("null")||r("true")||r("false")||r("NaN")||r("Infinity")},"value");if(!c())return!1;let u=a.length>0;for(;a.length>0;){i();const d=a[a.length-1],h=d===123?125:93,f=t.charCodeAt(n);if(f===h){n++,a.pop(),u=!1;continue}if(!u){if(f!==44)return!1;n++,i()}if(d===123){if(i(),t.charCodeAt(n)!==34||!o(Nl)||(i(),t.charCodeAt(n)!==58))return!1;n++}const y=a.length;if(!c())return!1;u=a.length>y}return i(),n===s}l(Nr,"parsesAsJson");function jl(e){return{prev_hash:e.prev_hash,input_hash:e.input_hash,model:e.model,prompt:e.prompt,tool_call:e.tool_call,tool_result:e.tool_result}}l(jl,"payloadOf");function $p(e,t=!1){return t?ke(jl(e)):Kn(jl(e))}l($p,"stepPayload");function jr(e,t=!1){return ae($p(e,t))}l(jr,"computeStepHash");const xp=["blob_refs","input_hash","model","prev_hash","prompt","seq","step_hash","tool_call","tool_result","ts"];function Fl(e){return{blob_refs:e.blob_refs,input_hash:e.input_hash,model:e.model,prev_hash:e.prev_hash,prompt:e.prompt,seq:e.seq,step_hash:e.step_hash,tool_call:e.tool_call,tool_result:e.tool_result,ts:qs(e.ts)}}l(Fl,"row_rowValue");function Ml(e){return Kn(Fl(e))}l(Ml,"encodeRow");const Ip=/^[{["0-9tfnNI-]/;function Fr(e){let t,n;try{n=le(e)}catch{return{kind:"malformed",reason:"invalid UTF-8"}}const s=un(n);if(s.length===0)return{kind:"blank"};if(!Ip.test(s))return{kind:"malformed",reason:"expecting value at column 1"};try{t=ye(s)}catch(i){if(i instanceof Ie)return{kind:"malformed",reason:i.message};if(i instanceof RangeError)return{kind:"malformed",reason:"line too large to read"};throw i}return G(t)?Pl(t,s===n?s:void 0):{kind:"malformed",reason:"line is not a JSON object"}}l(Fr,"readRowLine");const Ll=l((e,t)=>Object.prototype.hasOwnProperty.call(e,t),"has");function Pl(e,t,n){const s=[],i=e,r=l((k,S,v)=>(Ll(e,k)?S||s.push(`"${k}" ${v}`):s.push(`no "${k}" key`),Ll(e,k)&&S),"field"),o=r("seq",pt(i.seq),"is not an integer"),a=r("prev_hash",typeof i.prev_hash=="string","is not a string"),c=r("step_hash",typeof i.step_hash=="string","is not a string"),u=r("input_hash",typeof i.input_hash=="string","is not a string");let d=!0;for(const k of["model","prompt","tool_call","tool_result"])d=r(k,!0,"")&&d;const h=i.blob_refs;r("blob_refs",Array.isArray(h)&&h.every(k=>Pe(k)),"is not a list of SHA-256 hex digests");const f=Cr(i.ts);r("ts",f!==void 0,"is not a number");const y=a&&u&&d?{prev_hash:i.prev_hash,input_hash:i.input_hash,model:i.model,prompt:i.prompt,tool_call:i.tool_call,tool_result:i.tool_result}:void 0,m={seq:o?i.seq:void 0,prev_hash:a?i.prev_hash:void 0,step_hash:c?i.step_hash:void 0,computedHash:y===void 0?void 0:n?.computedHash??jr(y,!0)};if(s.length>0)return{kind:"row",view:m,row:void 0,shape:`row shape: ${s.join("; ")}`,value:e,canonical:!1};const b={...y,blob_refs:h,seq:Number(i.seq),step_hash:i.step_hash,ts:f};let _=n?.canonical??!1;if(n===void 0&&t!==void 0&&Object.keys(e).length===xp.length)try{_=ke(e)===t}catch{_=!1}return{kind:"row",view:m,row:b,shape:void 0,value:e,canonical:_}}l(Pl,"rowFromValue");const Cp="AGFzbQEAAAABIwVgAX8Bf2ACf38Bf2AAAX9gCH9/f39/f39/AX9gA39/fwF/AwoJAQAAAAMBAgQCBQMBAAEGYxJ/AEHAAAt/AUEAC38BQQALfwFBAAt/AUEAC38BQQALfwFBAAt/AUEAC38BQQALfwFBAAt/AUEAC38BQQALfwFBAAt/AUEAC38BQQALfwFBAAt/AUEAC3wBRAAAAAAAAAAACwc3BghSRUNfU0laRQMACGhlYXBCYXNlAAgEbmV4dAAGBmxpbmtlZAAHBHNjYW4ABAZtZW1vcnkCAAwBIAq1LAnNCAEKfyAAIwFIIABBAE5xBH8gAC0AAAVBgAILIgJBIkYEQCAAEAIPCwJAAkAgAkH7AEYEQCABQYAESg0BIABBAWoiBiMBSCAGQQBOcQR/IAYtAAAFQYACC0H9AEYNAkF/IQBBfyEFA0AgBiMBSCAGQQBOcQR/IAYtAAAFQYACC0EiRw0CIAYQAiIDQQBIDQIjAiECIABBAE4EQEEBIAQgAhsNAyAFIABrQQJrIgcgAyAGa0ECayIEIAQgB0obIQpBASEFAkADQCAFIApMBEAgACAFai0AACIJIAUgBmotAAAiCEghCyAIIAlHDQIgBUEBaiEFDAELCyAEIAdKIQsLIAtFDQMLIAYhACACIQQgAyIFIwFIIAVBAE5xBH8gBS0AAAVBgAILQTpHDQIgBUEBaiABQQFqEAAiBkEASA0CIAYjAUggBkEATnEEfyAGLQAABUGAAgsiAkH9AEYNAyACQSxHDQIgBkEBaiEGDAALAAsgAkHbAEYEQCABQYAESg0BIABBAWoiBiMBSCAGQQBOcQR/IAYtAAAFQYACC0HdAEYNAgNAIAYgAUEBahAAIgZBAEgNAiAGIwFIIAZBAE5xBH8gBi0AAAVBgAILIgBB3QBGDQMgAEEsRw0CIAZBAWohBgwACwALIAJB7gBGBEAgAEEEakF/An9BACAAQQBIIAAjAUG8CygCAEEBdiIBa0pyDQAaA0AgASAGSgRAQQAgACAGai0AACAGQQF0QcALai8BAEcNAhogBkEBaiEGDAELC0EBCxsPCyACQfQARgRAIABBBGpBfwJ/QQAgAEEASCAAIwFB3AsoAgBBAXYiAWtKcg0AGgNAIAEgBkoEQEEAIAAgBmotAAAgBkEBdEHgC2ovAQBHDQIaIAZBAWohBgwBCwtBAQsbDwsgAkHmAEYEQCAAQQVqQX8Cf0EAIABBAEggACMBQfwLKAIAQQF2IgFrSnINABoDQCABIAZKBEBBACAAIAZqLQAAIAZBAXRBgAxqLwEARw0CGiAGQQFqIQYMAQsLQQELGw8LIAJBzgBGBEAgAEEDakF/An9BACAAQQBIIAAjAUGcDCgCAEEBdiIBa0pyDQAaA0AgASAGSgRAQQAgACAGai0AACAGQQF0QaAMai8BAEcNAhogBkEBaiEGDAELC0EBCxsPCyACQckARgRAIABBCGpBfwJ/QQAgAEEASCAAIwFBvAwoAgBBAXYiAWtKcg0AGgNAIAEgBkoEQEEAIAAgBmotAAAgBkEBdEHADGovAQBHDQIaIAZBAWohBgwBCwtBAQsbDwsgAkEtRgRAAn9BACAAQQBIIAAjAUHsDCgCAEEBdiIBa0pyDQAaA0AgASAGSgRAQQAgACAGai0AACAGQQF0QfAMai8BAEcNAhogBkEBaiEGDAELC0EBCwRAIABBCWoPCyAAEAEPCyACQTBrQQpJBH8gABABBUF/Cw8LQX8PCyAGQQFqC/IEAQN/QQAkCSAAQQFqIAAgACMBSCAAQQBOcQR/IAAtAAAFQYACC0EtRhsiASMBSCABQQBOcQR/IAEtAAAFQYACCyICQTBGBEAgAUEBaiEBBSACQTlMIAJBMU5xBEAgAUEBaiEBA0AgASMBSCABQQBOcQR/IAEtAAAFQYACC0Ewa0EKSQRAIAFBAWohAQwBCwsFQX8PCwsgASMBSCABQQBOcQR/IAEtAAAFQYACC0EuRgR/IAFBAWoiAiMBSCACQQBOcQR/IAItAAAFQYACC0Ewa0EKSQVBAAsEQCABQQJqIQEDQCABIwFIIAFBAE5xBH8gAS0AAAVBgAILQTBrQQpJBEAgAUEBaiEBDAELC0EBJAkLIAEjAUggAUEATnEEfyABLQAABUGAAgsiAkHFAEYgAkHlAEZyBEAgAUEBaiICIwFIIAJBAE5xBH8gAi0AAAVBgAILIgNBLUYgA0ErRnIEQCACQQFqIQILIwEgAkogAkEATnEEfyACLQAABUGAAgtBMGtBCkkEQCACQQFqIQEDQCABIwFIIAFBAE5xBH8gAS0AAAVBgAILQTBrQQpJBEAgAUEBaiEBDAELC0EBJAkgASEBCwsjCQRAIAFBfyAAIAEQBQR/QQEFAn8jBSMETgRAQQEkBkEADAELIwMjBUEDdGoiAiAANgIAIAIgATYCBCMFQQFqJAVBAQsLGw8LIAEgAGtBAkYEfyAAIwFIIABBAE5xBH8gAC0AAAVBgAILQS1GBUEACwR/IABBAWoiAiMBSCACQQBOcQR/IAItAAAFQYACC0EwRgVBAAsEQEF/DwsgASAAa0HMIUoEQEF/DwsgAQv2AwIBewR/QQAkAiAAQQFqIQADQAN/IAAjAUEQa0wgAEEATnEEfyAA/QAEACIB/QwgICAgICAgICAgICAgICAg/SUgAf0Mf39/f39/f39/f39/f39/f/0j/VAgAf0MIiIiIiIiIiIiIiIiIiIiIv0jIAH9DFxcXFxcXFxcXFxcXFxcXFz9I/1Q/VD9ZCICRQRAIABBEGohAAwCCyAAIAJoagUgAAsLIgQjAUggBEEATnEEfyAELQAABUGAAgsiAEEiRgRAIARBAWoPCyAAQdwARgRAQQEkAiAEQQFqIgAjAUggAEEATnEEfyAALQAABUGAAgsiAEH1AEYgBCMBQQZrTHEEQCAELQAFQYAIai0AACIDIAQtAARBgAhqLQAAIgIgBC0AAkGACGotAAAiBSAELQADQYAIai0AACIAcnJyQYABcQRAQX8PCyAFQQx0IABBCHRyIAJBBHRyIANyIgBB/gBMBH8gAEEIRiAAQSBOciAAQQlGciAAQQpGciAAQQxGciAAQQ1GcgVBAAsEQEF/DwsgBEEGaiEADAILIABB3ABGIABBIkZyIABB4gBGciAAQeYARnIgAEHuAEZyIABB8gBGciAAQfQARnIEQCAEQQJqIQAMAgtBfw8LIABBIEggAEH+AEpyRQRAIARBAWohAAwBCwtBfwvyEQMDfwF7AXwCQAJ/QQAgAEEASCAAIwFBnAooAgBBAXYiAmtKcg0AGgNAIAEgAkgEQEEAIAAgAWotAAAgAUEBdEGgCmovAQBHDQIaIAFBAWohAQwBCwtBAQtFDQBBACEBIABBDmoiACMBSCAAQQBOcQR/IAAtAAAFQYACC0HdAEYEQCAAQQFqIQAFA0ACQCAAIwFIIABBAE5xBH8gAC0AAAVBgAILQSJHBH9BAAUgAEEBaiIDIwFBQGpKIANBAEhyBH9BAAX9DP////////////////////8hBEEAIQIDQCACQcAASARAIAQgAiADav0ABAAiBP0MMDAwMDAwMDAwMDAwMDAwMP1x/QwKCgoKCgoKCgoKCgoKCgoK/SYgBP0MYWFhYWFhYWFhYWFhYWFhYf1x/QwGBgYGBgYGBgYGBgYGBgYG/Sb9UP1OIQQgAkEQaiECDAELCyAE/WRB//8DRgsLBH8gAEHBAGoiAiMBSCACQQBOcQR/IAItAAAFQYACC0EiRwVBAQsNAyABQQFqIQEgAEHCAGoiAkEBaiEAIAIjAUggAkEATnEEfyACLQAABUGAAgsiAkHdAEYNACACQSxGDQEMAwsLCyABJBACf0EAIABBAEggACMBQcwKKAIAQQF2IgJrSnINABpBACEBA0AgASACSARAQQAgACABai0AACABQQF0QdAKai8BAEcNAhogAUEBaiEBDAELC0EBCwR/IABBD2oiASMBQUBqSiABQQBIcgR/QQAF/Qz/////////////////////IQRBACECA0AgAkHAAEgEQCAEIAEgAmr9AAQAIgT9DDAwMDAwMDAwMDAwMDAwMDD9cf0MCgoKCgoKCgoKCgoKCgoKCv0mIAT9DGFhYWFhYWFhYWFhYWFhYWH9cf0MBgYGBgYGBgYGBgYGBgYGBv0m/VD9TiEEIAJBEGohAgwBCwsgBP1kQf//A0YLBUEACwR/IABBzwBqIgEjAUggAUEATnEEfyABLQAABUGAAgtBIkcFQQELDQAgAEEBaiQMAn9BACAAQdAAaiIAIwFBjAsoAgBBAXYiAmtKIABBAEhyDQAaQQAhAQNAIAEgAkgEQEEAIAAgAWotAAAgAUEBdEGQC2ovAQBHDQIaIAFBAWohAQwBCwtBAQtFDQAgAEEJakEAEAAiAEEASAR/QQAFAn9BACAAQQBIIAAjAUGcDSgCAEEBdiICa0pyDQAaQQAhAQNAIAEgAkgEQEEAIAAgAWotAAAgAUEBdEGgDWovAQBHDQIaIAFBAWohAQwBCwtBAQsLBH8gAEHOAGoiASMBSCABQQBOcQR/IAEtAAAFQYACC0EiRwVBAQsEf0EABSAAQQ5qIgEjAUFAakogAUEASHIEf0EABf0M/////////////////////yEEQQAhAgNAIAJBwABIBEAgBCABIAJq/QAEACIE/QwwMDAwMDAwMDAwMDAwMDAw/XH9DAoKCgoKCgoKCgoKCgoKCgr9JiAE/QxhYWFhYWFhYWFhYWFhYWFh/XH9DAYGBgYGBgYGBgYGBgYGBgb9Jv1Q/U4hBCACQRBqIQIMAQsLIAT9ZEH//wNGCwtFDQAgAEEOaiQKAn9BACAAQc8AaiIAQQBIIAAjAUHMDSgCAEEBdiICa0pyDQAaQQAhAQNAIAEgAkgEQEEAIAAgAWotAAAgAUEBdEHQDWovAQBHDQIaIAFBAWohAQwBCwtBAQtFDQAgAEEKakEAEAAiAEEASAR/QQAFAn9BACAAQQBIIAAjAUH8DSgCAEEBdiICa0pyDQAaQQAhAQNAIAEgAkgEQEEAIAAgAWotAAAgAUEBdEGADmovAQBHDQIaIAFBAWohAQwBCwtBAQsLRQ0AIAAkDSAAQQdqIgAhASAAIwFIIABBAE5xBH8gAC0AAAVBgAILQTBGBEAgAEEBaiEABQNAIAAjAUggAEEATnEEfyAALQAABUGAAgtBMGtBCkkEQCAFRAAAAAAAACRAoiAAIwFIIABBAE5xBH8gAC0AAAVBgAILQTBrt6AhBSAAQQFqIQAMAQsLCyAAIAFGIAAgAWtBD0pyDQAgBSQRAn9BACAAQQBIIAAjAUGsDigCAEEBdiICa0pyDQAaQQAhAQNAIAEgAkgEQEEAIAAgAWotAAAgAUEBdEGwDmovAQBHDQIaIAFBAWohAQwBCwtBAQsEfyAAQc4AaiIBIwFIIAFBAE5xBH8gAS0AAAVBgAILQSJHBUEBCwR/QQAFIABBDmoiASMBQUBqSiABQQBIcgR/QQAF/Qz/////////////////////IQRBACECA0AgAkHAAEgEQCAEIAEgAmr9AAQAIgT9DDAwMDAwMDAwMDAwMDAwMDD9cf0MCgoKCgoKCgoKCgoKCgoKCv0mIAT9DGFhYWFhYWFhYWFhYWFhYWH9cf0MBgYGBgYGBgYGBgYGBgYGBv0m/VD9TiEEIAJBEGohAgwBCwsgBP1kQf//A0YLC0UNACAAQQ5qJAsCf0EAIABBzwBqIgAjAUHcDigCAEEBdiICa0ogAEEASHINABpBACEBA0AgASACSARAQQAgACABai0AACABQQF0QeAOai8BAEcNAhogAUEBaiEBDAELC0EBC0UNACAAQQFqJA4gAEENakEAEAAiAEEASAR/QQAFAn9BACAAQQBIIAAjAUGMDygCAEEBdiICa0pyDQAaQQAhAQNAIAEgAkgEQEEAIAAgAWotAAAgAUEBdEGQD2ovAQBHDQIaIAFBAWohAQwBCwtBAQsLRQ0AIABBD2pBABAAIgBBAEgEf0EABQJ/QQAgAEEASCAAIwFBzA8oAgBBAXYiAmtKcg0AGkEAIQEDQCABIAJIBEBBACAAIAFqLQAAIAFBAXRB0A9qLwEARw0CGiABQQFqIQEMAQsLQQELC0UNACAAJA8gAEEGahABIQAjCUUgAEEASHINACAAIwFIIABBAE5xBH8gAC0AAAVBgAILQf0ARw0AIABBAWoiACMBSCIBBH8gASAAQQBOcQR/IAAtAAAFQYACC0EKRwVBAAsNACAADwtBfwuoBAEGfyMIRQRAA0AgCEGAAkgEQCAIQeEAa0EGSSILIAhBMGsiCUEKSSIMcgRAAkAgDA0AIAhB1wBrIQkgCw0AQX8hCQsFQYABIQkLIAhBgAhqIAk6AAAgCEEBaiEIDAELC0EBJAgLIAEkASAGJAMgByQEQQAkBSAEIAVqIQcDQCAAIAFIIAMgCkpxBEACQCACIApBBnRqIQkjBSELQQAkBiAAEAMiBkEATiIIBEAjDSMMa0EDaiMPIw5raiIFIAcgBGtKBEAgCkEASg0CQQAhCAUgBEH7ADoAACAEQQFqIgwjDCMNIwxrIg38CgAAIAwgDWoiDEEsOgAAIAxBAWoiDCMOIw8jDmsiDfwKAAAgDCANakH9ADoAACAJIwo2AhAgCSMLNgIUIAkgBDYCGCAJIAU2AhwgCSMQNgIgIAkjETkDMCAEIAVqIQQLBSAKQQBKQQAjBhsEQCALJAUMAgsLIAhFBEAgCyQFIwEhBgJAIAAiBUEASA0AA0AgBSMBQRBrTARAIAUgBf0ABAD9DAoKCgoKCgoKCgoKCgoKCgr9I/1kIgxoaiEGIAwNAiAFQRBqIQUMAQsLA0AgBSMBSAR/IAUtAABBCkcFQQALBEAgBUEBaiEFDAELCyAFIQYLCyAJIAA2AgAgCSAGNgIEIAkgCEU2AgggCSABIAZKNgIMIAkgCzYCJCAJIwUgC2s2AiggCkEBaiEKIAZBAWohAAwCCwsLIAAkByAKC64DAQV/IABBAWogACAAIwFIIABBAE5xBH8gAC0AAAVBgAILQS1GGyIAIQQDQCAAIwFIIABBAE5xBH8gAC0AAAVBgAILQTBrQQpJBEAgAEEBaiEADAELCyAAIARrIgZBAEwEf0EBBSAAIwFIIABBAE5xBH8gAC0AAAVBgAILQS5HCwRAQQAPCyABIABBAWoiAmsiBUEATARAQQAPCyACIQADQCAAIAFIBEAgACMBSCAAQQBOcQR/IAAtAAAFQYACC0Ewa0EKTwRAQQAPCyAAQQFqIQAMAQsLIAVBAUYiAARAIAIjAUggAkEATnEEfyACLQAABUGAAgtBMEYhAAsgAAR/QQAFIAFBAWsiASMBSCABQQBOcQR/IAEtAAAFQYACC0EwRgsEQEEADwsgBCMBSCAEQQBOcQR/IAQtAAAFQYACC0EwRwRAIAZBACAFIAAbakEPTA8LIAZBAUcEQEEADwsgAARAQQEPCwNAIAMgBUgEfyACIANqIgAjAUggAEEATnEEfyAALQAABUGAAgtBMEYFQQALBEAgA0EBaiEDDAELCyAFIANrQQ9MIANBA0xxCwQAIwcLngEBAX8gACgCECID/QAEACAB/QAEAP0jIAP9AAQQIAH9AAQQ/SP9TiAD/QAEICAB/QAEIP0jIAP9AAQwIAH9AAQw/SP9Tv1O/WRB//8DRgR/IAAoAhQiAP0ABAAgAv0ABAD9IyAA/QAEECAC/QAEEP0j/U4gAP0ABCAgAv0ABCD9IyAA/QAEMCAC/QAEMP0j/U79Tv1kQf//A0YFQQALCwUAQdwPCwvtBCAAQYwKCwEsAEGYCgsjAgAAABwAAAB7ACIAYgBsAG8AYgBfAHIAZQBmAHMAIgA6AFsAQbwKCwE8AEHICgslAgAAAB4AAAAsACIAaQBuAHAAdQB0AF8AaABhAHMAaAAiADoAIgBB/AoLASwAQYgLCxkCAAAAEgAAACwAIgBtAG8AZABlAGwAIgA6AEGsCwsBHABBuAsLDwIAAAAIAAAAbgB1AGwAbABBzAsLARwAQdgLCw8CAAAACAAAAHQAcgB1AGUAQewLCwEcAEH4CwsRAgAAAAoAAABmAGEAbABzAGUAQYwMCwEcAEGYDAsNAgAAAAYAAABOAGEATgBBrAwLASwAQbgMCxcCAAAAEAAAAEkAbgBmAGkAbgBpAHQAeQBB3AwLASwAQegMCxkCAAAAEgAAAC0ASQBuAGYAaQBuAGkAdAB5AEGMDQsBLABBmA0LIwIAAAAcAAAALAAiAHAAcgBlAHYAXwBoAGEAcwBoACIAOgAiAEG8DQsBLABByA0LGwIAAAAUAAAALAAiAHAAcgBvAG0AcAB0ACIAOgBB7A0LASwAQfgNCxUCAAAADgAAACwAIgBzAGUAcQAiADoAQZwOCwEsAEGoDgsjAgAAABwAAAAsACIAcwB0AGUAcABfAGgAYQBzAGgAIgA6ACIAQcwOCwEsAEHYDgshAgAAABoAAAAsACIAdABvAG8AbABfAGMAYQBsAGwAIgA6AEH8DgsBPABBiA8LJQIAAAAeAAAALAAiAHQAbwBvAGwAXwByAGUAcwB1AGwAdAAiADoAQbwPCwEcAEHIDwsTAgAAAAwAAAAsACIAdABzACIAOg==",Vn=64,hn=16*1024*1024,Bp=2*1024*1024,Dl=4096,Xn=l(e=>Math.ceil(e/64)*64,"align"),Hl=65536,Ql=D.hash;function Ul(e){return Ql!==void 0?Ql("sha256",e,"hex"):D.createHash("sha256").update(e).digest("hex")}l(Ul,"sha256");class Op{static{l(this,"WasmScanner")}x;mem;data;i32;f64;rec;floats;digest;cap=0;scratch=0;blockEnd=0;pos=0;constructor(t){this.x=t.exports,this.rec=Xn(this.x.heapBase()),this.floats=Xn(this.rec+Dl*Vn),this.digest=Xn(this.floats+Hl*8),this.data=Xn(this.digest+64),this.ensure(Bp)}ensure(t){if(t<=this.cap)return;if(t>hn)throw new RangeError(`block of ${t} bytes`);const n=Math.min(hn,Math.max(t,2*this.cap)),s=Xn(this.data+n+64),i=s+n+64,r=this.x.memory.buffer.byteLength;i>r&&this.x.memory.grow(Math.ceil((i-r)/65536));const o=this.x.memory.buffer;this.mem=Buffer.from(o),this.i32=new Int32Array(o),this.f64=new Float64Array(o),this.cap=n,this.scratch=s}start(t){if(t<0||t>this.cap)throw new RangeError(`block of ${t} bytes`);this.blockEnd=this.data+t,this.pos=this.data}batch(){if(this.pos>=this.blockEnd)return 0;const t=this.x.scan(this.pos,this.blockEnd,this.rec,Dl,this.scratch,this.cap,this.floats,Hl);return this.pos=this.x.next(),t}record(t,n,s){const i=this.rec+t*Vn>>2,r=this.i32,o=r[i];return s.start=o,s.end=r[i+1],s.terminated=r[i+3]===1,s.row=r[i+2]===0?this.accepted(i,t,n):void 0,s.stored=s.row===void 0?-1:r[i+5],s}linkedRow(t,n,s){const i=this.rec+t*Vn>>2,r=this.i32;if(r[i+2]!==0||r[i+3]!==1||r[i+10]!==0||this.f64[(i>>1)+6]!==n)return-1;const o=r[i+6];return this.mem.write(Ul(this.mem.subarray(o,o+r[i+7])),this.digest,64,"latin1"),this.x.linked(i<<2,s,this.digest)===1?r[i+5]:-1}lineEnd(t){return this.i32[(this.rec+t*Vn>>2)+1]}refsOf(t,n){const s=this.rec+t*Vn>>2,i=this.i32[s],r=this.i32[s+8];for(let o=0;o<r;o++){const a=i+15+67*o;n.push(this.mem.toString("latin1",a,a+64))}}accepted(t,n,s){const i=this.i32,r=this.mem,o=i[t+9],a=i[t+10];for(let f=o;f<o+a;f++){const y=(this.floats>>2)+f*2,m=r.toString("latin1",i[y],i[y+1]);if(Jn(Number(m))!==m)return}const c=i[t+4],u=i[t+5],d=i[t+6],h=Ul(r.subarray(d,d+i[t+7]));return s!==void 0&&this.refsOf(n,s),{seq:this.f64[(t>>1)+6],prev_hash:r.toString("latin1",c,c+64),step_hash:r.toString("latin1",u,u+64),computedHash:h}}}let fn,Xs;function Gl(){if(fn===void 0)try{fn=new WebAssembly.Module(Buffer.from(Cp,"base64"))}catch{fn=null}return fn??void 0}l(Gl,"wasmModule");function v1(e){fn===void 0&&typeof WebAssembly<"u"&&e instanceof WebAssembly.Module&&(fn=e)}l(v1,"scanner_adoptWasmModule");function Wl(){if(Xs===void 0){const e=Gl();try{Xs=e===void 0?null:new Op(new WebAssembly.Instance(e,{}))}catch{Xs=null}}return Xs??void 0}l(Wl,"wasmScanner");const Rp=16*1024*1024,Zs=1024*1024;function Tp(e,t,n,s){const i=Math.min(n,t+s);if(i>=n)return n;const r=e.lastIndexOf(10,i-1);return r>=t?r+1:Math.min(n,e.indexOf(10,i)+1||n)}l(Tp,"blockEndOf");function pn(e,t,n,s,i,r,o){return ql(i,a=>{const c=new Kl(s+t,s+n,a,r,o),u=a.wasm===!1||a.fast===!1||o!==void 0?void 0:Wl();let d=t;for(;d<n;){const h=Tp(e,d,n,u===void 0?Rp:Zs);u!==void 0&&h-d<=hn?(u.ensure(h-d),e.copy(u.mem,u.data,d,h),c.wasmBlock(u,h-d,s+d)):c.jsBlock(e,d,h,s),d=h}return c.finish()})}l(pn,"scanChunk");function zl(e,t,n,s,i){return ql(s,r=>{const o=r.wasm===!1||r.fast===!1?void 0:Wl();if(o===void 0){const u=Jl(e,t,n-t);return pn(u,0,u.length,t,r,i)}const a=new Kl(t,n,r,i),c=(0,p.openSync)(e,"r");try{let u=t;for(;u<n;){o.ensure(Zs);let d=Mr(c,o.mem,o.data,Math.min(Zs,n-u),u);if(d===0)break;let h=d;if(u+d<n){const f=o.mem.lastIndexOf(10,o.data+d-1);if(f>=o.data)h=f+1-o.data;else{let y=-1;for(;y<0&&u+d<n&&d<hn;){const m=Math.min(Zs,n-u-d,hn-d);o.ensure(d+m);const b=Mr(c,o.mem,o.data+d,m,u+d);if(b===0)break;const _=o.mem.subarray(o.data+d,o.data+d+b).indexOf(10);_>=0&&(y=d+_),d+=b}if(y>=0)h=y+1;else if(u+d>=n||d<hn)h=d;else{const m=Np(c,u+d,n)-u,b=Jl(e,u,m);if(a.jsBlock(b,0,b.length,u),u+=b.length,b.length<m)break;continue}}}a.wasmBlock(o,h,u),u+=h}}finally{(0,p.closeSync)(c)}return a.finish()})}l(zl,"scanFileChunk");function ql(e,t){try{return t(e)}catch(n){if(e.wasm!==!1&&typeof WebAssembly<"u"&&n instanceof WebAssembly.RuntimeError)return t({...e,wasm:!1});throw n}}l(ql,"withJsFallback");function Mr(e,t,n,s,i){let r=0;for(;r<s;){const o=(0,p.readSync)(e,t,n+r,s-r,i+r);if(o===0)break;r+=o}return r}l(Mr,"readInto");function Jl(e,t,n){const s=(0,p.openSync)(e,"r");try{const i=Buffer.allocUnsafe(n);return i.subarray(0,Mr(s,i,0,n,t))}finally{(0,p.closeSync)(s)}}l(Jl,"readFileRange");function Np(e,t,n){const s=Buffer.allocUnsafe(65536);for(let i=t;i<n;i+=s.length){const r=(0,p.readSync)(e,s,0,Math.min(s.length,n-i),i);if(r===0)return i;const o=s.subarray(0,r).indexOf(10);if(o>=0)return i+o+1}return n}l(Np,"lineEndInFile");class Kl{static{l(this,"ChunkWalker")}options;onEntry;out;chain=new hp;faults=new Ys;line=0;refStage;refSet;rec={start:0,end:0,terminated:!1,row:void 0,stored:-1};fast;prevIsHex=!1;constructor(t,n,s,i,r){this.options=s,this.onEntry=r,this.out={start:t,end:n,lines:0,rows:0,seeded:i!==void 0,faults:{list:[],omitted:0}},i!==void 0&&(this.chain.expectedSeq=i.steps,this.chain.prevHash=i.prevHash,this.prevIsHex=i.prevHash!==null&&Pe(i.prevHash)),s.collectRefs&&(this.refStage=[],this.refSet=new Set),s.indexEvery!==void 0&&(this.out.index=[],this.out.indexPrev=[]),s.recovery&&(this.out.recovery={nonParsing:0}),this.fast=s.fast!==!1&&r===void 0}wasmBlock(t,n,s){const i=t.mem,r=s-t.data,o=this.rec,{chain:a,out:c}=this,u=this.options.indexEvery??0;let d=-1,h=!1;t.start(n);for(let f=t.batch();f>0;f=t.batch())for(let y=0;y<f;y++){if(d>=0&&(u===0||c.rows%u!==0)){const b=t.linkedRow(y,a.expectedSeq,d);if(b>=0){const _=++this.line;a.expectedSeq++,a.steps++,c.rows++,d=b,h=!0,c.recovery!==void 0&&(this.parsed(_,r+t.lineEnd(y)+1,"lf"),c.recovery.lastEnding="lf"),this.refStage!==void 0&&(t.refsOf(y,this.refStage),this.takeRefs());continue}}h&&(a.prevHash=i.toString("latin1",d,d+64),this.prevIsHex=!0,h=!1),t.record(y,this.refStage,o);const m=o.row??this.lineFastRow(i,o.start,o.end);this.segment(i,o.start,o.end,o.terminated,r,m),d=o.stored}h&&(a.prevHash=i.toString("latin1",d,d+64),this.prevIsHex=!0)}jsBlock(t,n,s,i){let r;if(this.fast)try{r=t.toString("latin1",n,s)}catch{r=void 0}let o=n;for(;o<s;){const a=t.indexOf(10,o),c=a>=0&&a<s,u=c?a:s,d=u>o&&r!==void 0?Or(r,o-n,u-n,this.expectedPrev(),this.refStage):void 0;this.segment(t,o,u,c,i,d),o=u+1}}finish(){const{out:t,chain:n}=this;return t.lines=this.line,t.rows>0&&(t.last={step_hash:n.prevHash}),t.faults={list:this.faults.list,omitted:this.faults.omitted},this.refSet!==void 0&&(t.refs=Array.from(this.refSet)),t}expectedPrev(){return this.prevIsHex&&this.chain.prevHash!==null?this.chain.prevHash:void 0}lineFastRow(t,n,s){if(s<=n)return;let i;try{i=t.toString("latin1",n,s)}catch{return}return Or(i,0,s-n,this.expectedPrev(),this.refStage)}segment(t,n,s,i,r,o){if(o!==void 0){this.row(++this.line,o,void 0,!0,i?"lf":"eof",r+n,r+(i?s+1:s)),this.prevIsHex=!0,this.takeRefs();return}if(n===s&&i){this.blank(++this.line,"lf");return}Rl(t,n,s,i,(a,c,u,d)=>this.slowLine(t,a,c,r+a,r+u,d))}blank(t,n){this.out.recovery!==void 0&&(this.out.recovery.lastEnding=n),this.options.strict&&this.faults.add({line:t,kind:"non_canonical",message:"blank line"})}takeRefs(){const t=this.refStage;if(!(t===void 0||t.length===0)){for(const n of t)this.refSet.add(n);t.length=0}}slowLine(t,n,s,i,r,o){const a=++this.line,{faults:c}=this,u=t.subarray(n,s),d=Fr(u);if(d.kind==="blank")return this.blank(a,o);if(this.out.recovery!==void 0&&(this.out.recovery.lastEnding=o),d.kind==="malformed"){const h=this.out.recovery;if(h!==void 0){if(!Nr(u)){h.nonParsing++,h.firstNonParsing??={line:a,offset:i,reason:d.reason};return}this.parsed(a,r,o)}c.add({line:a,kind:"malformed_json",message:d.reason});return}if(this.refSet!==void 0&&d.row!==void 0)for(const h of d.row.blob_refs)this.refSet.add(h);this.onEntry!==void 0&&this.onEntry(a,d.view,d.row,d.row===void 0?void 0:d.canonical?u:Buffer.from(un(le(u)),"utf8"),d.canonical),this.row(a,d.view,d.shape,d.canonical,o,i,r),this.prevIsHex=d.view.step_hash!==void 0&&Pe(d.view.step_hash)}parsed(t,n,s){const i=this.out.recovery;i.firstParsing??=t,i.firstNonParsing!==void 0&&(i.parsingAfterNonParsing??=t),i.lastParsing={line:t,next:n,ending:s}}row(t,n,s,i,r,o,a){const{out:c,chain:u,options:d,faults:h}=this;if(c.recovery!==void 0&&(this.parsed(t,a,r),c.recovery.lastEnding=r),c.first===void 0&&(c.first={line:t,seq:n.seq,prev_hash:n.prev_hash},!c.seeded)){const f=n.seq;c.guessedBase=typeof f=="number"&&Number.isSafeInteger(f)&&f>=0?f:-1,u.expectedSeq=c.guessedBase,u.prevHash=n.prev_hash??null}s!==void 0&&h.add({line:t,kind:"malformed_json",message:s}),u.check(t,n,h),d.strict&&(!i&&s===void 0&&h.add({line:t,kind:"non_canonical",message:"line bytes are not the canonical encoding of the row"}),r==="eof"?h.add({line:t,kind:"non_canonical",message:"last line has no trailing newline"}):r!=="lf"&&h.add({line:t,kind:"non_canonical",message:"line ends with a carriage return"})),c.index!==void 0&&c.rows%d.indexEvery===0&&(c.index.push(c.rows,o,t),c.indexPrev.push(n.prev_hash??"")),c.rows++}}const Yl="stepchain-journal-chunk",Vl=8*1024*1024,jp=16,Fp=1024*1024;let ei;function Mp(e){ei=e}l(Mp,"setChunkWorkerEntry");function Lp(e,t,n){const s={workerData:t,transferList:[n],stdout:!1,stderr:!1};return typeof e=="string"?new zs.Worker(e,s):new zs.Worker(e.source,{...s,eval:!0})}l(Lp,"startWorker");function E1(e){return typeof e=="object"&&e!==null&&e.tag===Yl}l(E1,"isChunkJob");function Xl(e,t,n,s,i){return e.kind==="file"?zl(e.path,t,n,s,i??void 0):pn(Buffer.from(e.buffer,t,n-t),0,n-t,t,s,i??void 0)}l(Xl,"walkSlice");const Zl=-1;function ti(e,t,n){const s=Atomics.add(e,0,1);return s>=t?-1:(Atomics.store(e,s+1,n),s)}l(ti,"claim");function S1(e){const t={results:[]};try{const n=new Int32Array(e.claims);adoptWasmModule(e.wasm);for(let s=ti(n,e.slices.length,e.mark);s>=0;s=ti(n,e.slices.length,e.mark)){const[i,r]=e.slices[s];t.results.push([s,Xl(e.source,i,r,e.options,e.seeds?.[s])])}}catch(n){t.error=n instanceof Error?n.message:String(n)}try{e.port.postMessage(t)}finally{const n=new Int32Array(e.done);Atomics.store(n,0,1),Atomics.notify(n,0)}}l(S1,"runChunkJob");function ec(e){const t=Number(e.STEPCHAIN_THREADS);return Number.isInteger(t)&&t>=1?Math.min(t,16):Math.max(1,Math.min((0,Ft.availableParallelism)(),8))}l(ec,"threads");function Pp(e,t,n){if(e.kind==="bytes"){const i=e.bytes.indexOf(10,t);return i<0||i>=n?n:i+1}const s=(0,p.openSync)(e.path,"r");try{const i=Buffer.allocUnsafe(65536);for(let r=t;r<n;r+=i.length){const o=(0,p.readSync)(s,i,0,Math.min(i.length,n-r),r);if(o===0)break;const a=i.subarray(0,o).indexOf(10);if(a>=0)return r+a+1}return n}finally{(0,p.closeSync)(s)}}l(Pp,"nextLineStart");function tc(e,t,n,s){const i=[t];for(let r=1;r<s;r++){const o=t+Math.floor((n-t)*r/s),a=Pp(e,Math.max(o,i[i.length-1]),n);a>i[i.length-1]&&a<n&&i.push(a)}return i.push(n),i.slice(0,-1).map((r,o)=>[r,i[o+1]])}l(tc,"plan");function nc(e,t,n,s,i=process.env,r){const o=Number(i.STEPCHAIN_PARALLEL_MIN_BYTES??Vl),a=n-t>=o?ec(i):1;if(a===1||ei===void 0)return Lr(e,tc(e,t,n,a),void 0,s,i,r);const c=Math.max(a,Math.min(a*jp,Math.floor((n-t)/Fp)));return Lr(e,tc(e,t,n,c),void 0,s,i,r)}l(nc,"scanSlices");function Lr(e,t,n,s,i=process.env,r){i.STEPCHAIN_WASM==="0"&&(s={...s,wasm:!1});const o=t.reduce((x,[E,B])=>x+B-E,0),a=Number(i.STEPCHAIN_PARALLEL_MIN_BYTES??Vl),c=t.length>1&&o>=a?Math.min(ec(i),t.length):1,u=l(x=>{const[E,B]=t[x],$=n?.[x]??void 0;return e.kind==="bytes"?pn(e.bytes,E,B,0,s,$):zl(e.path,E,B,s,$)},"inline");let d=0;const h=l(x=>{d+=x,r?.(d,o)},"report");if(c===1||ei===void 0)return t.map((x,E)=>{const B=u(E);return h(x[1]-x[0]),B});let f;e.kind==="bytes"&&(f=new SharedArrayBuffer(e.bytes.length),Buffer.from(f).set(e.bytes));const y=f?{kind:"shared",buffer:f,length:f.byteLength}:{kind:"file",path:e.path},m=new SharedArrayBuffer(4*(t.length+1)),b=new Int32Array(m),_=s.wasm===!1?void 0:Gl(),k=[];for(let x=1;x<c;x++){const E=new SharedArrayBuffer(4),{port1:B,port2:$}=new zs.MessageChannel,C={tag:Yl,source:y,slices:t,...n===void 0?{}:{seeds:n},claims:m,mark:x,options:s,wasm:_,done:E,port:$};try{const I=Lp(ei,C,$);I.unref(),I.on("error",()=>{}),k.push({worker:I,done:E,port:B,mark:x})}catch{B.close();break}}const S=new Array(t.length),v=l(()=>{let x=0;for(let E=0;E<t.length;E++)Atomics.load(b,E+1)!==0&&(x+=t[E][1]-t[E][0]);return x},"takenBytes");for(let x=ti(b,t.length,Zl);x>=0;x=ti(b,t.length,Zl))S[x]=Xl(y,t[x][0],t[x][1],s,n?.[x]),r!==void 0&&r(Math.min(o,v()),o);const A=new Set;for(let x=0;x<t.length;x++)A.add(Atomics.load(b,x+1));for(const x of k){const E=Date.now()+2e4+o/5e3,B=new Int32Array(x.done);for(;A.has(x.mark)&&Atomics.load(B,0)===0&&Date.now()<E;)Atomics.wait(B,0,0,200),r!==void 0&&r(Math.min(o,v()),o);const $=(0,zs.receiveMessageOnPort)(x.port)?.message;x.port.close(),x.worker.terminate();for(const[C,I]of $?.results??[])S[C]=I}return r?.(o,o),t.map((x,E)=>S[E]??u(E))}l(Lr,"walkRanges");const Dp='"use strict";var Te=Object.create;var G=Object.defineProperty;var qe=Object.getOwnPropertyDescriptor;var je=Object.getOwnPropertyNames;var Ue=Object.getPrototypeOf,Ke=Object.prototype.hasOwnProperty;var u=(e,n)=>G(e,"name",{value:n,configurable:!0});var Xe=(e,n,t,r)=>{if(n&&typeof n=="object"||typeof n=="function")for(let s of je(n))!Ke.call(e,s)&&s!==t&&G(e,s,{get:()=>n[s],enumerable:!(r=qe(n,s))||r.enumerable});return e};var de=(e,n,t)=>(t=e!=null?Te(Ue(e)):{},Xe(n||!e||!e.__esModule?G(t,"default",{value:e,enumerable:!0}):t,e));var H=require("node:worker_threads");var _=require("node:fs");var fe=require("node:crypto");var Y="0".repeat(64),De=/^[0-9a-f]{64}$/;function he(e){return(0,fe.createHash)("sha256").update(e).digest("hex")}u(he,"sha256Hex");function N(e){return typeof e=="string"&&De.test(e)}u(N,"isSha256Hex");var Ge=u(e=>/^[0-9a-f]{64}$/.test(e)?e:JSON.stringify(e),"hashText"),J=Ge,L=class{static{u(this,"ChainChecker")}expectedSeq=0;prevHash=Y;steps=0;check(n,t,r){t.seq!==void 0&&t.seq!==this.expectedSeq&&BigInt(t.seq)!==BigInt(this.expectedSeq)&&r.add({line:n,kind:"seq_mismatch",message:`seq ${String(t.seq)}, expected ${this.expectedSeq}`}),t.prev_hash!==void 0&&t.prev_hash!==this.prevHash&&r.add({line:n,kind:"prev_hash_mismatch",message:this.prevHash===null?`chain break: prev_hash ${J(t.prev_hash)}, but the previous row has no step_hash string`:`chain break: prev_hash ${J(t.prev_hash)} does not match the previous step_hash ${J(this.prevHash)}`}),t.computedHash!==void 0&&t.step_hash!==void 0&&t.computedHash!==t.step_hash&&r.add({line:n,kind:"step_hash_mismatch",message:`field tamper: stored step_hash ${J(t.step_hash)}, recomputed ${J(t.computedHash)}`}),this.expectedSeq++,this.prevHash=t.step_hash??null,this.steps++}get head(){return this.steps===0?Y:this.prevHash??""}};var q=de(require("node:crypto"));var S=class{constructor(n){this.value=n}value;static{u(this,"JsonFloat")}};function Z(e){return typeof e=="object"&&e!==null&&!Array.isArray(e)&&!(e instanceof S)&&!(e instanceof Map)}u(Z,"isJsonObject");function z(e){if(typeof e=="number")return e;if(typeof e=="bigint")return Number(e);if(e instanceof S)return e.value}u(z,"numericValue");function Q(e){return typeof e=="number"&&Number.isInteger(e)||typeof e=="bigint"}u(Q,"isJsonInteger");function ee(e,n,t){n==="__proto__"?Object.defineProperty(e,n,{value:t,enumerable:!0,writable:!0,configurable:!0}):e[n]=t}u(ee,"setKey");function k(e){if(Number.isNaN(e))return"NaN";if(e===1/0)return"Infinity";if(e===-1/0)return"-Infinity";if(e===0)return Object.is(e,-0)?"-0.0":"0.0";let n=e<0?"-":"",t=String(Math.abs(e)),r=t.indexOf("e"),s=r<0?t:t.slice(0,r),i=r<0?0:Number(t.slice(r+1)),a=s.indexOf("."),c=a<0?s:s.slice(0,a),f=a<0?s:c+s.slice(a+1),l=0;for(;l<f.length-1&&f.charCodeAt(l)===48;)l++;let o=f.length;for(;o>l+1&&f.charCodeAt(o-1)===48;)o--;let m=f.slice(l,o),d=c.length+i-l-1;if(d>=-4&&d<16){if(d>=0){let b=m.length>d+1?m.slice(0,d+1):m.padEnd(d+1,"0"),y=m.length>d+1?m.slice(d+1):"0";return`${n}${b}.${y}`}return`${n}0.${"0".repeat(-d-1)}${m}`}let h=m.length===1?m:`${m[0]}.${m.slice(1)}`,x=`${d<0?"-":"+"}${String(Math.abs(d)).padStart(2,"0")}`;return`${n}${h}e${x}`}u(k,"pythonFloatRepr");function O(e,n){let t=Math.min(e.length,n.length),r=0;for(;r<t&&e.charCodeAt(r)===n.charCodeAt(r);)r++;if(r===t)return e.length-n.length;let s=e.charCodeAt(r),i=n.charCodeAt(r);if(s<55296&&i<55296)return s-i;let a=u(c=>c>=56320&&c<=57343,"low");if(r>0&&(a(s)||a(i))){let c=e.charCodeAt(r-1);c>=55296&&c<=56319&&r--}return(e.codePointAt(r)??0)-(n.codePointAt(r)??0)}u(O,"compareCodePoints");var A=class extends Error{static{u(this,"CanonicalEncodeError")}name="CanonicalEncodeError"},Ye={34:\'\\\\"\',92:"\\\\\\\\",10:"\\\\n",13:"\\\\r",9:"\\\\t",8:"\\\\b",12:"\\\\f"},Ze=/^[\\x20\\x21\\x23-\\x5b\\x5d-\\x7e]*$/;function ne(e){if(Ze.test(e))return`"${e}"`;let n=\'"\',t=0;for(let r=0;r<e.length;r++){let s=e.charCodeAt(r);s>=32&&s<=126&&s!==34&&s!==92||(n+=e.slice(t,r),n+=Ye[s]??`\\\\u${s.toString(16).padStart(4,"0")}`,t=r+1)}return`${n}${e.slice(t)}"`}u(ne,"encodeString");function ze(e,n){if(Number.isInteger(e))return Number.isSafeInteger(e)?String(e===0?0:e):BigInt(e).toString();if(!Number.isFinite(e)&&!n)throw new A(`${String(e)} is not allowed in a written value (JSON has no NaN or Infinity)`);return k(e)}u(ze,"encodeNumber");function te(e,n={}){let t=n.sortKeys??!0,r=n.separators==="pretty",s=r?", ":",",i=r?": ":":",a=n.allowNonFinite??!1,c=n.maxNesting??900,f=u(o=>{let m=o instanceof Map?[...o]:Object.entries(o);return t&&m.sort((d,h)=>O(d[0],h[0])),m},"entriesOf"),l=u((o,m)=>{switch(typeof o){case"string":return ne(o);case"number":return ze(o,a);case"bigint":return o.toString();case"boolean":return o?"true":"false";case"object":{if(o===null)return"null";if(o instanceof S){if(!Number.isFinite(o.value)&&!a)throw new A(`${String(o.value)} is not allowed in a written value (JSON has no NaN or Infinity)`);return k(o.value)}if(m>=c)throw new A(`value nested deeper than ${c} levels`);if(Array.isArray(o)){let x="[";for(let b=0;b<o.length;b++)b>0&&(x+=s),x+=l(o[b],m+1);return`${x}]`}let d="{",h=!0;for(let[x,b]of f(o))b!==void 0&&(h||(d+=s),h=!1,d+=ne(x)+i+l(b,m+1));return`${d}}`}default:throw new A(`a ${typeof o} has no JSON encoding`)}},"walk");return l(e,0)}u(te,"encode");function W(e){return te(e)}u(W,"canonical");function B(e){return te(e,{allowNonFinite:!0})}u(B,"canonicalOfRead");var v=class extends Error{constructor(t,r){super(`${t} at column ${r}`);this.reason=t;this.column=r}reason;column;static{u(this,"JsonParseError")}name="JsonParseError"};function be(e,n){let t=Error.stackTraceLimit;Error.stackTraceLimit=0;try{return new v(e,n)}finally{Error.stackTraceLimit=t}}u(be,"parseError");var me=4300,pe=/-?(?:0|[1-9][0-9]*)(\\.[0-9]+)?([eE][-+]?[0-9]+)?/y,Qe=new TextDecoder("utf-8",{fatal:!0,ignoreBOM:!0});function M(e){try{return Qe.decode(e)}catch{throw be("invalid UTF-8",1)}}u(M,"decodeUtf8");function re(e,n={}){let t=n.objects==="map",r=0,s=e.length,i=u((d,h=r)=>{throw be(d,h+1)},"fail"),a=u(()=>{for(;r<s;){let d=e.charCodeAt(r);if(d===32||d===10||d===13||d===9)r++;else break}},"skipWs"),c=u(()=>{let d=++r,h="",x=d;for(;;){r>=s&&i("unterminated string",d-1);let b=e.charCodeAt(r);if(b===34)return h+=e.slice(x,r),r++,h;if(b<32&&i("invalid control character in string"),b!==92){r++;continue}switch(h+=e.slice(x,r),e.charCodeAt(r+1)){case 34:h+=\'"\';break;case 92:h+="\\\\";break;case 47:h+="/";break;case 98:h+="\\b";break;case 102:h+="\\f";break;case 110:h+=`\n`;break;case 114:h+="\\r";break;case 116:h+="	";break;case 117:{let g=e.slice(r+2,r+6);/^[0-9a-fA-F]{4}$/.test(g)||i("invalid \\\\uXXXX escape"),h+=String.fromCharCode(parseInt(g,16)),r+=4;break}default:i("invalid escape")}r+=2,x=r}},"parseString"),f=u(()=>{pe.lastIndex=r;let d=pe.exec(e);if(d===null)return i("expecting value");let h=d[0],x=r;if(r+=h.length,d[1]!==void 0||d[2]!==void 0){let g=Number(h);return Number.isInteger(g)||Object.is(g,-0)||!Number.isFinite(g)?new S(g):g}let b=h.length-(h.charCodeAt(0)===45?1:0);if(b<=15)return Number(h);b>me&&i(`integer of ${b} digits exceeds the ${me}-digit limit`,x);let y=BigInt(h);return y>=BigInt(Number.MIN_SAFE_INTEGER)&&y<=BigInt(Number.MAX_SAFE_INTEGER)?Number(y):y},"parseNumber"),l=u(d=>{a();let h=e.charCodeAt(r);switch((h===123||h===91)&&d>=900&&i(`nested deeper than ${900} levels`),h){case 34:return c();case 123:{r++;let x={},b=new Map;if(a(),e.charCodeAt(r)===125)return r++,t?b:x;for(;;){a(),e.charCodeAt(r)!==34&&i("expecting property name enclosed in double quotes");let y=c();a(),e.charCodeAt(r)!==58&&i("expecting \':\' delimiter"),r++;let g=l(d+1);t?b.set(y,g):ee(x,y,g),a();let I=e.charCodeAt(r);if(I===44){r++;continue}if(I===125)return r++,t?b:x;i("expecting \',\' delimiter")}}case 91:{r++;let x=[];if(a(),e.charCodeAt(r)===93)return r++,x;for(;;){x.push(l(d+1)),a();let b=e.charCodeAt(r);if(b===44){r++;continue}if(b===93)return r++,x;i("expecting \',\' delimiter")}}case 110:return o("null",null);case 116:return o("true",!0);case 102:return o("false",!1);case 78:return o("NaN",new S(NaN));case 73:return o("Infinity",new S(1/0));case 45:return e.startsWith("-Infinity",r)?o("-Infinity",new S(-1/0)):f();default:return h>=48&&h<=57?f():i("expecting value")}},"parseValue"),o=u((d,h)=>(e.startsWith(d,r)||i("expecting value"),r+=d.length,h),"literal"),m=l(0);return a(),r<s&&i("extra data"),m}u(re,"parse");var T=/-?(?:0|[1-9][0-9]*)(\\.[0-9]+)?([eE][-+]?[0-9]+)?/y,xe=512,nn=4300,p="",se=/"(?:[\\x20\\x21\\x23-\\x5b\\x5d-\\x7e]|\\\\["\\\\bfnrt]|\\\\u(?!00(?:0[89acd]|[2-6][0-9a-f]|7[0-9a-e]))[0-9a-f]{4})*"/y;function ge(e){return se.lastIndex=e,se.test(p)?se.lastIndex:-1}u(ge,"scanString");function ye(e){T.lastIndex=e;let n=T.exec(p);if(n===null)return-1;let t=n[0];return n[1]!==void 0||n[2]!==void 0?k(Number(t))===t?e+t.length:-1:t==="-0"||t.length>nn?-1:e+t.length}u(ye,"scanNumber");function tn(e,n,t,r){let s=p.slice(e+1,n-1),i=p.slice(t+1,r-1);return s.indexOf("\\\\")<0&&i.indexOf("\\\\")<0?s<i:O(JSON.parse(`"${s}"`),JSON.parse(`"${i}"`))<0}u(tn,"keyLess");function C(e,n){let t=p.charCodeAt(e);switch(t){case 34:return ge(e);case 123:{if(n>xe)return-1;let r=e+1;if(p.charCodeAt(r)===125)return r+1;let s=-1,i=-1;for(;;){if(p.charCodeAt(r)!==34)return-1;let a=ge(r);if(a<0||s>=0&&!tn(s,i,r,a)||(s=r,i=a,p.charCodeAt(a)!==58)||(r=C(a+1,n+1),r<0))return-1;let c=p.charCodeAt(r);if(c===125)return r+1;if(c!==44)return-1;r++}}case 91:{if(n>xe)return-1;let r=e+1;if(p.charCodeAt(r)===93)return r+1;for(;;){if(r=C(r,n+1),r<0)return-1;let s=p.charCodeAt(r);if(s===93)return r+1;if(s!==44)return-1;r++}}case 110:return p.startsWith("null",e)?e+4:-1;case 116:return p.startsWith("true",e)?e+4:-1;case 102:return p.startsWith("false",e)?e+5:-1;case 78:return p.startsWith("NaN",e)?e+3:-1;case 73:return p.startsWith("Infinity",e)?e+8:-1;case 45:return p.startsWith("-Infinity",e)?e+9:ye(e);default:return t>=48&&t<=57?ye(e):-1}}u(C,"scanValue");function $(e){for(let n=e;n<e+64;n++){let t=p.charCodeAt(n);if(!(t>=48&&t<=57||t>=97&&t<=102))return!1}return!0}u($,"hexAt");var Se=q.hash;function rn(e){return Se!==void 0?Se("sha256",e,"hex"):q.createHash("sha256").update(e,"latin1").digest("hex")}u(rn,"sha256Ascii");function oe(e,n,t,r,s){p=e;let i=s===void 0?0:s.length;if(!p.startsWith(\'{"blob_refs":[\',n))return;let a=n+14;if(p.charCodeAt(a)===93)a++;else for(;;){if(p.charCodeAt(a)!==34||!$(a+1)||p.charCodeAt(a+65)!==34)return ie(s,i);s?.push(p.slice(a+1,a+65)),a+=66;let f=p.charCodeAt(a++);if(f===93)break;if(f!==44)return ie(s,i)}let c;try{c=sn(a,t,r)}catch(f){if(!(f instanceof RangeError))throw f}return c===void 0?ie(s,i):c}u(oe,"fastRow");function ie(e,n){e!==void 0&&(e.length=n)}u(ie,"dropRefs");function sn(e,n,t){if(!p.startsWith(\',"input_hash":"\',e)||!$(e+15)||p.charCodeAt(e+79)!==34)return;let r=e+1;if(e+=80,!p.startsWith(\',"model":\',e)||(e=C(e+9,0),e<0||!p.startsWith(\',"prev_hash":"\',e)||p.charCodeAt(e+78)!==34))return;let s=p.slice(e+14,e+78);if(s!==t&&!$(e+14)||(e+=79,!p.startsWith(\',"prompt":\',e))||(e=C(e+10,0),e<0||!p.startsWith(\',"seq":\',e)))return;let i=e;e+=7;let a=e;if(p.charCodeAt(e)===48)e++;else for(;e<n&&p.charCodeAt(e)>=48&&p.charCodeAt(e)<=57;)e++;if(e===a||e-a>15)return;let c=Number(p.slice(a,e));if(!p.startsWith(\',"step_hash":"\',e)||p.charCodeAt(e+78)!==34)return;let f=p.slice(e+14,e+78),l=e+14;if(e+=79,!p.startsWith(\',"tool_call":\',e))return;let o=e+1;if(e=C(e+13,0),e<0||!p.startsWith(\',"tool_result":\',e)||(e=C(e+15,0),e<0||!p.startsWith(\',"ts":\',e)))return;let m=e;e+=6,T.lastIndex=e;let d=T.exec(p);if(d===null||d[1]===void 0&&d[2]===void 0||k(Number(d[0]))!==d[0]||(e+=d[0].length,e!==n-1||p.charCodeAt(e)!==125))return;let h=rn(`{${p.slice(r,i)},${p.slice(o,m)}}`);if(!(f!==h&&!$(l)))return{seq:c,prev_hash:s,step_hash:f,computedHash:h}}u(sn,"fastRowRest");var j=class{constructor(n=1e3,t=()=>!0){this.cap=n;this.mayJoin=t}cap;mayJoin;static{u(this,"FaultList")}list=[];total=0;omitted=0;open=new Map;add(n){let t=n.count??1;if(this.total+=t,n.line!==null){let s=this.open.get(n.kind);if(s!==void 0&&(s.last_line??s.line)+1===n.line&&this.mayJoin(s,n)){s.count=(s.count??1)+t,s.last_line=n.last_line??n.line;return}}if(this.list.length>=this.cap&&n.line!==null){this.omitted+=t,this.open.delete(n.kind);return}let r={...n};this.list.push(r),n.line!==null&&this.open.set(n.kind,r)}addOmitted(n){this.total+=n,this.omitted+=n}addAll(n){for(let t of n.list)this.add(t);n.omitted>0&&this.addOmitted(n.omitted)}};function ke(e){return e<=32?e===32||e>=9&&e<=13||e>=28&&e<=31:e<133?!1:e===133||e===160||e===5760||e>=8192&&e<=8202||e===8232||e===8233||e===8239||e===8287||e===12288}u(ke,"isPyWhitespace");function E(e){let n=0,t=e.length;for(;n<t&&ke(e.charCodeAt(n));)n++;for(;t>n&&ke(e.charCodeAt(t-1));)t--;return n===0&&t===e.length?e:e.slice(n,t)}u(E,"pyStrip");function _e(e,n,t,r,s){let i=0,a=n;for(;;){let c=on(e,13,a,t);if(c<0){if(r)s(a,t,t+1,"lf");else if(a<t)s(a,t,t,"eof");else return i;return i+1}if(c+1===t&&r)return s(a,c,t+1,"crlf"),i+1;s(a,c,c+1,"cr"),i++,a=c+1}}u(_e,"splitSegment");function on(e,n,t,r){if(r-t<=32){for(let i=t;i<r;i++)if(e[i]===n)return i;return-1}let s=e.subarray(t,r).indexOf(n);return s<0?-1:t+s}u(on,"indexIn");var an=new TextDecoder("utf-8",{fatal:!1,ignoreBOM:!0}),un=/-?(?:0|[1-9][0-9]*)(?:\\.[0-9]+)?(?:[eE][-+]?[0-9]+)?/y,Ae=/"(?:[^"\\\\\\x00-\\x1f]|\\\\["\\\\/bfnrt]|\\\\u[0-9a-fA-F]{4})*"/y;function we(e){let n=an.decode(e);n.charCodeAt(0)===65279&&(n=n.slice(1)),n=E(n);let t=0,r=n.length,s=u(()=>{for(;t<r;){let o=n.charCodeAt(t);if(o===32||o===9||o===10||o===13)t++;else break}},"ws"),i=u(o=>n.startsWith(o,t)?(t+=o.length,!0):!1,"word"),a=u(o=>(o.lastIndex=t,o.test(n)?(t=o.lastIndex,!0):!1),"sticky"),c=[],f=u(()=>{s();let o=n.charCodeAt(t);if(o===123||o===91)return c.push(o),t++,!0;if(o===34)try{return a(Ae)}catch{return!1}return o===45&&n.startsWith("-Infinity",t)?i("-Infinity"):o===45||o>=48&&o<=57?a(un):i("null")||i("true")||i("false")||i("NaN")||i("Infinity")},"value");if(!f())return!1;let l=c.length>0;for(;c.length>0;){s();let o=c[c.length-1],m=o===123?125:93,d=n.charCodeAt(t);if(d===m){t++,c.pop(),l=!1;continue}if(!l){if(d!==44)return!1;t++,s()}if(o===123){if(s(),n.charCodeAt(t)!==34||!a(Ae)||(s(),n.charCodeAt(t)!==58))return!1;t++}let h=c.length;if(!f())return!1;l=c.length>h}return s(),t===r}u(we,"parsesAsJson");function ve(e){return{prev_hash:e.prev_hash,input_hash:e.input_hash,model:e.model,prompt:e.prompt,tool_call:e.tool_call,tool_result:e.tool_result}}u(ve,"payloadOf");function cn(e,n=!1){return n?B(ve(e)):W(ve(e))}u(cn,"stepPayload");function Ce(e,n=!1){return he(cn(e,n))}u(Ce,"computeStepHash");var ln=["blob_refs","input_hash","model","prev_hash","prompt","seq","step_hash","tool_call","tool_result","ts"];var dn=/^[{["0-9tfnNI-]/;function Re(e){let n,t;try{t=M(e)}catch{return{kind:"malformed",reason:"invalid UTF-8"}}let r=E(t);if(r.length===0)return{kind:"blank"};if(!dn.test(r))return{kind:"malformed",reason:"expecting value at column 1"};try{n=re(r)}catch(s){if(s instanceof v)return{kind:"malformed",reason:s.message};if(s instanceof RangeError)return{kind:"malformed",reason:"line too large to read"};throw s}return Z(n)?fn(n,r===t?r:void 0):{kind:"malformed",reason:"line is not a JSON object"}}u(Re,"readRowLine");var Ee=u((e,n)=>Object.prototype.hasOwnProperty.call(e,n),"has");function fn(e,n,t){let r=[],s=e,i=u((g,I,$e)=>(Ee(e,g)?I||r.push(`"${g}" ${$e}`):r.push(`no "${g}" key`),Ee(e,g)&&I),"field"),a=i("seq",Q(s.seq),"is not an integer"),c=i("prev_hash",typeof s.prev_hash=="string","is not a string"),f=i("step_hash",typeof s.step_hash=="string","is not a string"),l=i("input_hash",typeof s.input_hash=="string","is not a string"),o=!0;for(let g of["model","prompt","tool_call","tool_result"])o=i(g,!0,"")&&o;let m=s.blob_refs;i("blob_refs",Array.isArray(m)&&m.every(g=>N(g)),"is not a list of SHA-256 hex digests");let d=z(s.ts);i("ts",d!==void 0,"is not a number");let h=c&&l&&o?{prev_hash:s.prev_hash,input_hash:s.input_hash,model:s.model,prompt:s.prompt,tool_call:s.tool_call,tool_result:s.tool_result}:void 0,x={seq:a?s.seq:void 0,prev_hash:c?s.prev_hash:void 0,step_hash:f?s.step_hash:void 0,computedHash:h===void 0?void 0:t?.computedHash??Ce(h,!0)};if(r.length>0)return{kind:"row",view:x,row:void 0,shape:`row shape: ${r.join("; ")}`,value:e,canonical:!1};let b={...h,blob_refs:m,seq:Number(s.seq),step_hash:s.step_hash,ts:d},y=t?.canonical??!1;if(t===void 0&&n!==void 0&&Object.keys(e).length===ln.length)try{y=B(e)===n}catch{y=!1}return{kind:"row",view:x,row:b,shape:void 0,value:e,canonical:y}}u(fn,"rowFromValue");var K=de(require("node:crypto"));var P=64,w=16*1024*1024,mn=2*1024*1024,Ie=4096,V=u(e=>Math.ceil(e/64)*64,"align"),Ne=65536,Je=K.hash;function Oe(e){return Je!==void 0?Je("sha256",e,"hex"):K.createHash("sha256").update(e).digest("hex")}u(Oe,"sha256");var ae=class{static{u(this,"WasmScanner")}x;mem;data;i32;f64;rec;floats;digest;cap=0;scratch=0;blockEnd=0;pos=0;constructor(n){this.x=n.exports,this.rec=V(this.x.heapBase()),this.floats=V(this.rec+Ie*P),this.digest=V(this.floats+Ne*8),this.data=V(this.digest+64),this.ensure(mn)}ensure(n){if(n<=this.cap)return;if(n>w)throw new RangeError(`block of ${n} bytes`);let t=Math.min(w,Math.max(n,2*this.cap)),r=V(this.data+t+64),s=r+t+64,i=this.x.memory.buffer.byteLength;s>i&&this.x.memory.grow(Math.ceil((s-i)/65536));let a=this.x.memory.buffer;this.mem=Buffer.from(a),this.i32=new Int32Array(a),this.f64=new Float64Array(a),this.cap=t,this.scratch=r}start(n){if(n<0||n>this.cap)throw new RangeError(`block of ${n} bytes`);this.blockEnd=this.data+n,this.pos=this.data}batch(){if(this.pos>=this.blockEnd)return 0;let n=this.x.scan(this.pos,this.blockEnd,this.rec,Ie,this.scratch,this.cap,this.floats,Ne);return this.pos=this.x.next(),n}record(n,t,r){let s=this.rec+n*P>>2,i=this.i32,a=i[s];return r.start=a,r.end=i[s+1],r.terminated=i[s+3]===1,r.row=i[s+2]===0?this.accepted(s,n,t):void 0,r.stored=r.row===void 0?-1:i[s+5],r}linkedRow(n,t,r){let s=this.rec+n*P>>2,i=this.i32;if(i[s+2]!==0||i[s+3]!==1||i[s+10]!==0||this.f64[(s>>1)+6]!==t)return-1;let a=i[s+6];return this.mem.write(Oe(this.mem.subarray(a,a+i[s+7])),this.digest,64,"latin1"),this.x.linked(s<<2,r,this.digest)===1?i[s+5]:-1}lineEnd(n){return this.i32[(this.rec+n*P>>2)+1]}refsOf(n,t){let r=this.rec+n*P>>2,s=this.i32[r],i=this.i32[r+8];for(let a=0;a<i;a++){let c=s+15+67*a;t.push(this.mem.toString("latin1",c,c+64))}}accepted(n,t,r){let s=this.i32,i=this.mem,a=s[n+9],c=s[n+10];for(let d=a;d<a+c;d++){let h=(this.floats>>2)+d*2,x=i.toString("latin1",s[h],s[h+1]);if(k(Number(x))!==x)return}let f=s[n+4],l=s[n+5],o=s[n+6],m=Oe(i.subarray(o,o+s[n+7]));return r!==void 0&&this.refsOf(t,r),{seq:this.f64[(n>>1)+6],prev_hash:i.toString("latin1",f,f+64),step_hash:i.toString("latin1",l,l+64),computedHash:m}}},R,U;function Fe(){if(R===void 0)try{R=new WebAssembly.Module(Buffer.from("","base64"))}catch{R=null}return R??void 0}u(Fe,"wasmModule");function Be(e){R===void 0&&typeof WebAssembly<"u"&&e instanceof WebAssembly.Module&&(R=e)}u(Be,"adoptWasmModule");function ue(){if(U===void 0){let e=Fe();try{U=e===void 0?null:new ae(new WebAssembly.Instance(e,{}))}catch{U=null}}return U??void 0}u(ue,"wasmScanner");var pn=16*1024*1024,X=1024*1024;function bn(e,n,t,r){let s=Math.min(t,n+r);if(s>=t)return t;let i=e.lastIndexOf(10,s-1);return i>=n?i+1:Math.min(t,e.indexOf(10,s)+1||t)}u(bn,"blockEndOf");function le(e,n,t,r,s,i,a){return Ve(s,c=>{let f=new D(r+n,r+t,c,i,a),l=c.wasm===!1||c.fast===!1||a!==void 0?void 0:ue(),o=n;for(;o<t;){let m=bn(e,o,t,l===void 0?pn:X);l!==void 0&&m-o<=w?(l.ensure(m-o),e.copy(l.mem,l.data,o,m),f.wasmBlock(l,m-o,r+o)):f.jsBlock(e,o,m,r),o=m}return f.finish()})}u(le,"scanChunk");function Pe(e,n,t,r,s){return Ve(r,i=>{let a=i.wasm===!1||i.fast===!1?void 0:ue();if(a===void 0){let l=Me(e,n,t-n);return le(l,0,l.length,n,i,s)}let c=new D(n,t,i,s),f=(0,_.openSync)(e,"r");try{let l=n;for(;l<t;){a.ensure(X);let o=ce(f,a.mem,a.data,Math.min(X,t-l),l);if(o===0)break;let m=o;if(l+o<t){let d=a.mem.lastIndexOf(10,a.data+o-1);if(d>=a.data)m=d+1-a.data;else{let h=-1;for(;h<0&&l+o<t&&o<w;){let x=Math.min(X,t-l-o,w-o);a.ensure(o+x);let b=ce(f,a.mem,a.data+o,x,l+o);if(b===0)break;let y=a.mem.subarray(a.data+o,a.data+o+b).indexOf(10);y>=0&&(h=o+y),o+=b}if(h>=0)m=h+1;else if(l+o>=t||o<w)m=o;else{let x=xn(f,l+o,t)-l,b=Me(e,l,x);if(c.jsBlock(b,0,b.length,l),l+=b.length,b.length<x)break;continue}}}c.wasmBlock(a,m,l),l+=m}}finally{(0,_.closeSync)(f)}return c.finish()})}u(Pe,"scanFileChunk");function Ve(e,n){try{return n(e)}catch(t){if(e.wasm!==!1&&typeof WebAssembly<"u"&&t instanceof WebAssembly.RuntimeError)return n({...e,wasm:!1});throw t}}u(Ve,"withJsFallback");function ce(e,n,t,r,s){let i=0;for(;i<r;){let a=(0,_.readSync)(e,n,t+i,r-i,s+i);if(a===0)break;i+=a}return i}u(ce,"readInto");function Me(e,n,t){let r=(0,_.openSync)(e,"r");try{let s=Buffer.allocUnsafe(t);return s.subarray(0,ce(r,s,0,t,n))}finally{(0,_.closeSync)(r)}}u(Me,"readFileRange");function xn(e,n,t){let r=Buffer.allocUnsafe(65536);for(let s=n;s<t;s+=r.length){let i=(0,_.readSync)(e,r,0,Math.min(r.length,t-s),s);if(i===0)return s;let a=r.subarray(0,i).indexOf(10);if(a>=0)return s+a+1}return t}u(xn,"lineEndInFile");var D=class{constructor(n,t,r,s,i){this.options=r;this.onEntry=i;this.out={start:n,end:t,lines:0,rows:0,seeded:s!==void 0,faults:{list:[],omitted:0}},s!==void 0&&(this.chain.expectedSeq=s.steps,this.chain.prevHash=s.prevHash,this.prevIsHex=s.prevHash!==null&&N(s.prevHash)),r.collectRefs&&(this.refStage=[],this.refSet=new Set),r.indexEvery!==void 0&&(this.out.index=[],this.out.indexPrev=[]),r.recovery&&(this.out.recovery={nonParsing:0}),this.fast=r.fast!==!1&&i===void 0}options;onEntry;static{u(this,"ChunkWalker")}out;chain=new L;faults=new j;line=0;refStage;refSet;rec={start:0,end:0,terminated:!1,row:void 0,stored:-1};fast;prevIsHex=!1;wasmBlock(n,t,r){let s=n.mem,i=r-n.data,a=this.rec,{chain:c,out:f}=this,l=this.options.indexEvery??0,o=-1,m=!1;n.start(t);for(let d=n.batch();d>0;d=n.batch())for(let h=0;h<d;h++){if(o>=0&&(l===0||f.rows%l!==0)){let b=n.linkedRow(h,c.expectedSeq,o);if(b>=0){let y=++this.line;c.expectedSeq++,c.steps++,f.rows++,o=b,m=!0,f.recovery!==void 0&&(this.parsed(y,i+n.lineEnd(h)+1,"lf"),f.recovery.lastEnding="lf"),this.refStage!==void 0&&(n.refsOf(h,this.refStage),this.takeRefs());continue}}m&&(c.prevHash=s.toString("latin1",o,o+64),this.prevIsHex=!0,m=!1),n.record(h,this.refStage,a);let x=a.row??this.lineFastRow(s,a.start,a.end);this.segment(s,a.start,a.end,a.terminated,i,x),o=a.stored}m&&(c.prevHash=s.toString("latin1",o,o+64),this.prevIsHex=!0)}jsBlock(n,t,r,s){let i;if(this.fast)try{i=n.toString("latin1",t,r)}catch{i=void 0}let a=t;for(;a<r;){let c=n.indexOf(10,a),f=c>=0&&c<r,l=f?c:r,o=l>a&&i!==void 0?oe(i,a-t,l-t,this.expectedPrev(),this.refStage):void 0;this.segment(n,a,l,f,s,o),a=l+1}}finish(){let{out:n,chain:t}=this;return n.lines=this.line,n.rows>0&&(n.last={step_hash:t.prevHash}),n.faults={list:this.faults.list,omitted:this.faults.omitted},this.refSet!==void 0&&(n.refs=Array.from(this.refSet)),n}expectedPrev(){return this.prevIsHex&&this.chain.prevHash!==null?this.chain.prevHash:void 0}lineFastRow(n,t,r){if(r<=t)return;let s;try{s=n.toString("latin1",t,r)}catch{return}return oe(s,0,r-t,this.expectedPrev(),this.refStage)}segment(n,t,r,s,i,a){if(a!==void 0){this.row(++this.line,a,void 0,!0,s?"lf":"eof",i+t,i+(s?r+1:r)),this.prevIsHex=!0,this.takeRefs();return}if(t===r&&s){this.blank(++this.line,"lf");return}_e(n,t,r,s,(c,f,l,o)=>this.slowLine(n,c,f,i+c,i+l,o))}blank(n,t){this.out.recovery!==void 0&&(this.out.recovery.lastEnding=t),this.options.strict&&this.faults.add({line:n,kind:"non_canonical",message:"blank line"})}takeRefs(){let n=this.refStage;if(!(n===void 0||n.length===0)){for(let t of n)this.refSet.add(t);n.length=0}}slowLine(n,t,r,s,i,a){let c=++this.line,{faults:f}=this,l=n.subarray(t,r),o=Re(l);if(o.kind==="blank")return this.blank(c,a);if(this.out.recovery!==void 0&&(this.out.recovery.lastEnding=a),o.kind==="malformed"){let m=this.out.recovery;if(m!==void 0){if(!we(l)){m.nonParsing++,m.firstNonParsing??={line:c,offset:s,reason:o.reason};return}this.parsed(c,i,a)}f.add({line:c,kind:"malformed_json",message:o.reason});return}if(this.refSet!==void 0&&o.row!==void 0)for(let m of o.row.blob_refs)this.refSet.add(m);this.onEntry!==void 0&&this.onEntry(c,o.view,o.row,o.row===void 0?void 0:o.canonical?l:Buffer.from(E(M(l)),"utf8"),o.canonical),this.row(c,o.view,o.shape,o.canonical,a,s,i),this.prevIsHex=o.view.step_hash!==void 0&&N(o.view.step_hash)}parsed(n,t,r){let s=this.out.recovery;s.firstParsing??=n,s.firstNonParsing!==void 0&&(s.parsingAfterNonParsing??=n),s.lastParsing={line:n,next:t,ending:r}}row(n,t,r,s,i,a,c){let{out:f,chain:l,options:o,faults:m}=this;if(f.recovery!==void 0&&(this.parsed(n,c,i),f.recovery.lastEnding=i),f.first===void 0&&(f.first={line:n,seq:t.seq,prev_hash:t.prev_hash},!f.seeded)){let d=t.seq;f.guessedBase=typeof d=="number"&&Number.isSafeInteger(d)&&d>=0?d:-1,l.expectedSeq=f.guessedBase,l.prevHash=t.prev_hash??null}r!==void 0&&m.add({line:n,kind:"malformed_json",message:r}),l.check(n,t,m),o.strict&&(!s&&r===void 0&&m.add({line:n,kind:"non_canonical",message:"line bytes are not the canonical encoding of the row"}),i==="eof"?m.add({line:n,kind:"non_canonical",message:"last line has no trailing newline"}):i!=="lf"&&m.add({line:n,kind:"non_canonical",message:"line ends with a carriage return"})),f.index!==void 0&&f.rows%o.indexEvery===0&&(f.index.push(f.rows,a,n),f.indexPrev.push(t.prev_hash??"")),f.rows++}};var gn="stepchain-journal-chunk",Vt=8*1024*1024;var Ht=1024*1024;function Le(e){return typeof e=="object"&&e!==null&&e.tag===gn}u(Le,"isChunkJob");function yn(e,n,t,r,s){return e.kind==="file"?Pe(e.path,n,t,r,s??void 0):le(Buffer.from(e.buffer,n,t-n),0,t-n,n,r,s??void 0)}u(yn,"walkSlice");function He(e,n,t){let r=Atomics.add(e,0,1);return r>=n?-1:(Atomics.store(e,r+1,t),r)}u(He,"claim");function We(e){let n={results:[]};try{let t=new Int32Array(e.claims);Be(e.wasm);for(let r=He(t,e.slices.length,e.mark);r>=0;r=He(t,e.slices.length,e.mark)){let[s,i]=e.slices[r];n.results.push([r,yn(e.source,s,i,e.options,e.seeds?.[r])])}}catch(t){n.error=t instanceof Error?t.message:String(t)}try{e.port.postMessage(n)}finally{let t=new Int32Array(e.done);Atomics.store(t,0,1),Atomics.notify(t,0)}}u(We,"runChunkJob");!H.isMainThread&&Le(H.workerData)&&We(H.workerData);\n',F=require("node:path");var g=ue.n(F);function Pr(e){let t;try{t=(0,p.readFileSync)(`/proc/${e}/stat`,"latin1")}catch{return}const s=t.slice(t.lastIndexOf(")")+2).split(" ")[19];return s!==void 0&&/^[0-9]+$/.test(s)?s:void 0}l(Pr,"processStartTicks");let ni;function sc(){if(ni===void 0)try{ni=(0,p.readFileSync)("/proc/sys/kernel/random/boot_id","latin1").trim()||null}catch{ni=null}return ni??void 0}l(sc,"bootId");let si;function Hp(){if(si===void 0)try{const e=/^btime ([0-9]+)$/m.exec((0,p.readFileSync)("/proc/stat","latin1"));si=e===null?null:Number(e[1])*1e3}catch{si=null}return si??void 0}l(Hp,"bootTimeMs");const Qp=100;function ic(e){const t=Pr(e),n=Hp();if(!(t===void 0||n===void 0))return n+Number(t)*1e3/Qp}l(ic,"processStartMs");function Up(e){if(!Number.isSafeInteger(e)||e<=0)return!1;try{return process.kill(e,0),!0}catch(t){return t.code==="EPERM"}}l(Up,"pidAlive");let ii;function et(){return(ii===void 0||ii.pid!==process.pid)&&(ii={pid:process.pid,host:(0,Ft.hostname)(),start:Pr(process.pid),boot:sc()}),ii}l(et,"selfIdentity");function ri(e,t,n,s){const i=sc();if(n!==void 0&&i!==void 0&&n!==i||!Up(e))return!1;const r=Pr(e);if(t!==void 0&&r!==void 0)return r===t;if(t===void 0&&s!==void 0){const o=ic(e);if(o!==void 0&&o>s+2e3)return!1}return!0}l(ri,"sameProcessAlive");function Gp(e){try{const n=(0,p.readFileSync)(`/proc/${e}/cmdline`,"utf8").split("\0").filter(Boolean).join(" ").replace(/[\x00-\x1f\x7f-\x9f]/g,"?");return n.length>80?`${n.slice(0,77)}...`:n||void 0}catch{return}}l(Gp,"processCommand");function Dr(e){return(0,D.createHash)("sha256").update(e).digest("hex").slice(0,8)}l(Dr,"hostTag");function rc(){const e=et();return`${e.pid}-${e.start??"x"}-${Dr(e.host)}`}l(rc,"selfToken");const Wp=3e4;function oc(e){const t=e.STEPCHAIN_LOCK_TIMEOUT_MS;return t!==void 0&&/^[0-9]{1,9}$/.test(t.trim())?Number(t.trim()):void 0}l(oc,"lockTimeoutFromEnv");const ac=2e4,zp=6e4,qp=new Int32Array(new SharedArrayBuffer(4));function oi(e){Atomics.wait(qp,0,0,e)}l(oi,"sleepMs");function Jp(e){const t=e.trim().split(" "),n=Number(t[0]);if(!/^[0-9]+$/.test(t[0]??"")||!Number.isSafeInteger(n)||n<=0||t[1]===void 0)return;const s={raw:e,pid:n,host:t[1]};for(const i of t.slice(3)){const r=i.indexOf("="),o=i.slice(0,r),a=i.slice(r+1);o==="start"&&/^[0-9]+$/.test(a)?s.start=a:o==="boot"&&a!==""?s.boot=a:o==="lease"&&/^[0-9]+$/.test(a)&&(s.leaseMs=Number(a))}return s}l(Jp,"parseHolder");function lc(e){try{const t=(0,p.statSync)(e).mtimeMs;return{raw:(0,p.readFileSync)(e,"utf8"),mtimeMs:t}}catch{return}}l(lc,"readLock");function ai(e){try{return(0,p.readFileSync)(e,"utf8")}catch{return}}l(ai,"readOwner");function cc(e,t,n){const s=Jp(e.raw);if(s===void 0)return Date.now()-e.mtimeMs>1e4?{stale:"the lock names no holder"}:{live:void 0};if(s.host===et().host)return ri(s.pid,s.start,s.boot,e.mtimeMs)?{live:s}:{stale:`its holder (pid ${s.pid}) is gone`};const i=s.leaseMs??ac;return Date.now()-e.mtimeMs>i+zp?{stale:`the lease of host ${s.host} expired`}:n-t>=i?{stale:`host ${s.host} stopped refreshing its lease`}:{live:s,lease:i}}l(cc,"staleness");function dc(e,t){if(e===void 0)return"an unknown writer (the lock file names no process)";const n=t===void 0?"":`, lock taken or renewed ${((Date.now()-t.mtimeMs)/1e3).toFixed(1)} s ago`;if(e.host!==et().host)return`pid ${e.pid} on host ${e.host}${n}`;const s=Gp(e.pid),i=ic(e.pid),r=i===void 0?"":`, running for ${((Date.now()-i)/1e3).toFixed(0)} s`;return`pid ${e.pid} on this host${s===void 0?"":` (${s})`}${r}${n}`}l(dc,"describeHolder");function Kp(e,t,n,s){const i=dc(t,n),r=t===void 0?`if no stepchain process is using it, remove the lock: rm ${e}`:t.host===et().host?`wait for it to finish, or stop it if it is stuck (kill ${t.pid}); if that process is not stepchain, remove the lock: rm ${e}`:`it is still renewing its lease: wait for that writer on ${t.host} to finish or stop it there; if it is gone the lease expires on its own, or remove the lock: rm ${e}`;return new N(`${e}: locked by ${i}; gave up after ${s} ms. Remedy: ${r}`)}l(Kp,"timeoutError");function li(e,t={}){const n=t.timeoutMs??Wp,s=t.leaseMs??ac;let i=performance.now()+n;const r=et(),o=`${r.pid} ${r.host} ${(0,D.randomBytes)(6).toString("hex")}${r.start===void 0?"":` start=${r.start}`}${r.boot===void 0?"":` boot=${r.boot}`} lease=${s}`;let a=1;const c=Qr(e);try{(0,p.writeFileSync)(c,o,{mode:420,flag:"wx"})}catch(h){try{(0,p.unlinkSync)(c)}catch{}throw W(h)?X(h,e,"cannot take the lock"):h}const u=new Map,d=new Map;try{for(;;){if(Yp(c,e))return Hr(c),uc(g().dirname(e)),Vp(e,o,s);const h=lc(e);if(h===void 0)continue;const f=performance.now(),y=`${h.mtimeMs} ${h.raw}`;u.has(y)||u.set(y,f),d.has(h.raw)||d.set(h.raw,f);const m=cc(h,u.get(y),f);if("stale"in m){Xp(e,h.raw);continue}if(m.lease!==void 0&&(i=Math.max(i,d.get(h.raw)+m.lease+50)),f>i)throw Kp(e,m.live,h,n);oi(a),a=Math.min(a*2,50)}}finally{Hr(c)}}l(li,"acquireLock");function Hr(e){try{(0,p.unlinkSync)(e)}catch{}}l(Hr,"removeQuietly");function Yp(e,t){try{return(0,p.linkSync)(e,t),!0}catch(n){const s=n.code;if(s==="EEXIST")return!1;throw s==="ENOENT"?new w(`${t}: cannot take the lock: its directory ${g().dirname(t)} no longer exists`):W(n)?X(n,t,"cannot take the lock"):n}}l(Yp,"tryLink");function Vp(e,t,n){let s=performance.now(),i,r=!1;const o=l(()=>{if(r||ai(e)!==t)return;const c=new Date;try{(0,p.utimesSync)(e,c,c),s=performance.now()}catch{}},"renew");return Object.assign(l(()=>{r||(r=!0,i!==void 0&&clearInterval(i),ai(e)===t&&Hr(e))},"release"),{file:e,refresh(){performance.now()-s>=n/4&&o()},heartbeat(){i!==void 0||r||(i=setInterval(o,Math.max(50,Math.floor(n/4))),i.unref())},assertHeld(){if(r||ai(e)!==t)throw new N(`${e}: this writer's lock was taken over (its lease expired while it worked); nothing was written`)}})}l(Vp,"handle");function Xp(e,t){const n=Qr(e);try{(0,p.renameSync)(e,n)}catch{return}if(ai(n)===t){try{(0,p.unlinkSync)(n)}catch{}return}try{(0,p.linkSync)(n,e)}catch{}try{(0,p.unlinkSync)(n)}catch{}}l(Xp,"breakStale");function Zp(e){const t=lc(e);if(t===void 0)return;const n=performance.now(),s=cc(t,n,n);return"stale"in s?void 0:dc(s.live,t)}l(Zp,"liveLockHolder");function ve(e,t=process.env){const n=t.STEPCHAIN_TEST_PAUSE;if(n===void 0||n===""||!n.split(",").includes(e))return;(0,p.writeSync)(2,`stepchain: paused at ${e} (pid ${process.pid})
`);const s=t.STEPCHAIN_TEST_RESUME;if(s!==void 0&&s!==""){for(;!(0,p.existsSync)(s);)oi(20);return}for(;;)oi(1e3)}l(ve,"pausePoint");function He(e,t,n){let s=0;for(;s<t.length;)s+=(0,p.writeSync)(e,t,s,t.length-s,n===void 0?null:n+s)}l(He,"writeAll");function gt(e){let t;try{t=(0,p.openSync)(e,"r"),(0,p.fsyncSync)(t)}catch{}finally{t!==void 0&&(0,p.closeSync)(t)}}l(gt,"fsyncDir");function Mt(e,t,n){const s=Buffer.allocUnsafe(n);let i=0;for(;i<n;){const r=(0,p.readSync)(e,s,i,n-i,t+i);if(r===0)break;i+=r}return s.subarray(0,i)}l(Mt,"readRange");function Ce(e){try{const t=(0,p.statSync)(e);return t.isDirectory()?"dir":t.isFile()?"file":void 0}catch{return}}l(Ce,"pathKind");function Qe(e,t){try{(0,p.mkdirSync)(e,t===void 0?{recursive:!0}:{recursive:!0,mode:t});return}catch(n){if(!W(n))throw n;let s=g().resolve(e);for(;!(0,p.existsSync)(g().dirname(s))&&g().dirname(s)!==s;)s=g().dirname(s);try{(0,p.mkdirSync)(s)}catch(i){if(W(i)&&i.code!=="EEXIST")throw X(i,s,"cannot create directory")}throw X(n,e,"cannot create directory")}}l(Qe,"ensureDir");function em(e,t){const n=g().relative(e,t);if(n===""||n.startsWith("..")||g().isAbsolute(n))return Qe(t);let s=e;for(const i of n.split(g().sep)){s=g().join(s,i);try{(0,p.mkdirSync)(s)}catch(r){if(W(r)&&r.code==="EEXIST")continue;throw W(r)?X(r,s,"cannot create directory"):r}}}l(em,"ensureDirUnder");function Qr(e){return`${e}.${rc()}.${(0,D.randomBytes)(5).toString("hex")}.tmp`}l(Qr,"tempPath");const tm=/\.([0-9]+)-([0-9]+|x)-([0-9a-f]{8})\.[0-9a-f]+\.tmp$/,nm=36e5,sm=[/\.lock\.([0-9]+)\.[0-9a-z]+\.tmp$/,/\.lock\.stale-([0-9]+)-[0-9a-z]+$/];function im(e){return e.replace(/[.*+?^${}()|[\]\\]/g,"\\$&")}l(im,"escapeRegExp");function uc(e,t=[]){let n;try{n=(0,p.readdirSync)(e)}catch{return[]}const s=[];for(const i of n){let r,o,a=!1;const c=tm.exec(i);if(c!==null)r=Number(c[1]),o=c[2]==="x"?void 0:c[2],a=c[3]!==Dr(et().host);else{const d=[...sm,...t].map(h=>h.exec(i)).find(h=>h!==null);if(d==null)continue;r=Number(d[1]),o=void 0}const u=g().join(e,i);try{const d=(0,p.lstatSync)(u);if(!d.isFile()&&!d.isSymbolicLink()||(a?Date.now()-d.mtimeMs<nm:ri(r,o,void 0,d.mtimeMs)))continue;(0,p.unlinkSync)(u),s.push(i)}catch{}}return s}l(uc,"cleanDeadTemps");function Ur(e,t,n){const s=Qr(e);let i;try{i=(0,p.openSync)(s,"wx",n.mode??420),He(i,t),n.durable&&(0,p.fsyncSync)(i),(0,p.closeSync)(i),i=void 0,n.exclusive?((0,p.linkSync)(s,e),(0,p.unlinkSync)(s)):(0,p.renameSync)(s,e)}catch(r){if(i!==void 0)try{(0,p.closeSync)(i)}catch{}try{(0,p.unlinkSync)(s)}catch{}throw W(r)&&!(n.exclusive&&r.code==="EEXIST")?X(r,e,"cannot write"):r}n.durable&&gt(g().dirname(e))}l(Ur,"writeFileWhole");function rm(e,t){return e.dev===t.dev&&e.ino===t.ino&&e.size===t.size&&e.ctimeNs===t.ctimeNs}l(rm,"sameFile");const Gr=p.constants.O_NOFOLLOW??0,om=p.constants.O_WRONLY|p.constants.O_APPEND|p.constants.O_CREAT|Gr;function Wr(e,t,n){return W(e)&&e.code==="ELOOP"?new w(`${t}: ${n}: it is a symbolic link; refusing to write through it`):W(e)?X(e,t,n):e}l(Wr,"openError");function zr(e,t,n,s){ve("append:before-write");let i;try{i=(0,p.openSync)(e,om,384)}catch(c){throw Wr(c,e,"cannot open for appending")}let r,o,a;try{const c=(0,p.fstatSync)(i,{bigint:!0});r=Number(c.size),a=s==="new"?c.size===0n:s!==void 0&&String(c.dev)===s.dev&&String(c.ino)===s.ino&&String(c.size)===s.size&&String(c.ctimeNs)===s.ctime_ns;let u;try{He(i,t),u=(0,p.fstatSync)(i,{bigint:!0}),ve("append:before-fsync"),n&&(0,p.fsyncSync)(i)}catch(d){let h=`cut back to its previous ${r} bytes`;try{(0,p.ftruncateSync)(i,r),n&&(0,p.fsyncSync)(i)}catch(f){h=`cutting it back to ${r} bytes also failed: ${W(f)?wl(f):String(f)}`}throw W(d)?X(d,e,`cannot append (nothing written: ${h})`):d}o=(0,p.fstatSync)(i,{bigint:!0}),a&&=rm(u,o)&&o.size===c.size+BigInt(t.length)}finally{(0,p.closeSync)(i)}return r===0&&n&&gt(g().dirname(e)),{before:r,after:o,untouched:a}}l(zr,"appendDurably");function qr(e,t,n,s=420){let i;try{i=(0,p.openSync)(e,p.constants.O_RDWR|Gr)}catch(r){throw Wr(r,e,"cannot open to repair a torn tail")}try{const r=(0,p.fstatSync)(i).size,o=Mt(i,t,r-t),a=`${e}.torn-${Date.now()}`;for(let c=0;;c++){const u=c===0?a:`${a}-${c}`;try{Ur(u,o,{durable:n,mode:s,exclusive:!0})}catch(d){if(W(d)&&d.code==="EEXIST")continue;throw d}try{(0,p.ftruncateSync)(i,t),n&&(0,p.fsyncSync)(i)}catch(d){throw W(d)?X(d,e,"cannot cut off a torn tail"):d}return u}}finally{(0,p.closeSync)(i)}}l(qr,"moveTornTailAside");function Jr(e,t,n){let s;try{s=(0,p.openSync)(e,p.constants.O_RDWR|Gr)}catch(i){throw Wr(i,e,"cannot open to finish the last line")}try{He(s,Buffer.from(`
`),t),n&&(0,p.fsyncSync)(s)}catch(i){try{(0,p.ftruncateSync)(s,t)}catch{}throw W(i)?X(i,e,"cannot finish the last line"):i}finally{(0,p.closeSync)(s)}}l(Jr,"finishLastLine");const am=/^[A-Za-z0-9_.-]{1,128}$/;function be(e){return am.test(e)&&e!=="."&&e!==".."}l(be,"isSafeId");function ce(e,t="id"){if(!be(e))throw new w(`unsafe ${t} ${JSON.stringify(e)}: ids are 1-128 characters of A-Z a-z 0-9 _ . - and never "." or ".."`);return e}l(ce,"assertSafeId");const pe="000000.jsonl";function Zn(e){return g().join(e,".sdd","runtime")}l(Zn,"runtimeDir");function lm(e){return g().join(Zn(e),"journal")}l(lm,"journalsDir");function Be(e,t){return g().join(lm(e),ce(t,"agent id"))}l(Be,"journalDir");function Lt(e,t){return g().join(Be(e,t),pe)}l(Lt,"journalFile");function tt(e){return g().join(Zn(e),"cas")}l(tt,"casDir");function cm(e){return g().join(Zn(e),"tombstones")}l(cm,"tombstonesDir");function Kr(e,t){return g().join(cm(e),`${t}.json`)}l(Kr,"tombstoneFile");function dm(e,t){const n=Kr(e,t.fork_session_id);return Qe(g().dirname(n)),Ur(n,Buffer.from(`${JSON.stringify(t)}
`,"utf8"),{durable:!0}),n}l(dm,"writeTombstone");function mn(e){const t=g().resolve(e),n=g().dirname(t),s=g().dirname(n);if(g().basename(n)!=="worktrees"||g().basename(s)!==".sdd")return;const i=g().basename(t);return be(i)?{parent:g().dirname(s),id:i}:void 0}l(mn,"forkParentRoot");function Yr(e,t){const n=[];be(t)&&n.push(Kr(e,t));const s=mn(e);return s!==void 0&&n.push(Kr(s.parent,s.id)),n.find(i=>(0,p.existsSync)(i))}l(Yr,"findTombstone");function um(e){try{const t=JSON.parse((0,p.readFileSync)(e,"utf8")),n=typeof t.steps=="number"?`, ${t.steps} steps`:"";return`fork ${String(t.fork_session_id)} was removed at ${String(t.removed_at)}${n}`}catch{return"it was removed"}}l(um,"describe");function hc(e,t,n){const s=Yr(e,t);if(s!==void 0)throw new N(`${n}: refusing to start a fresh journal: ${um(s)} (tombstone ${s}); record into a live session or fork`);const i=be(t)?g().join(e,".sdd","worktrees",t):void 0;if(i!==void 0&&(0,p.existsSync)(i))throw new N(`${n}: refusing to start a fresh journal: ${t} is a fork of this project, whose journal is ${g().join(Be(i,t),pe)}; record there (run from ${i}, or pass that journal directory)`);if(mn(e)!==void 0&&!(0,p.existsSync)(e))throw new N(`${n}: refusing to start a fresh journal: the fork worktree ${e} does not exist (removed?); see \`stepchain forks\``)}l(hc,"refuseRemovedJournal");function hm(e,t){if(!be(t))return;const n=g().join(Be(e,t),pe);(0,p.existsSync)(n)||hc(e,t,n)}l(hm,"refuseRemovedJournalAt");const fm=/[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g,pm=/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;function mm(e){if(e===`
`)return"\\n";const t=e.charCodeAt(0);return t>255?`\\u${t.toString(16).padStart(4,"0")}`:`\\x${t.toString(16).padStart(2,"0")}`}l(mm,"visible");function R(e,t={}){const n=t.newlines==="keep"?pm:fm;return e.replace(n,mm).replace(/\t/g,"  ")}l(R,"sanitize");function Vr(e){return Ae(e,{sortKeys:!1,allowNonFinite:!0,maxNesting:ln+16})}l(Vr,"jsonDocument");function gm(){const e=l(t=>t.code==="EPIPE"||t.code==="ERR_STREAM_DESTROYED","closed");process.stdout.on("error",t=>{e(t)&&process.exit(141),process.stderr.write(`stepchain: cannot write the output: ${t.code??t.message}
`),process.exit(1)}),process.stderr.on("error",t=>process.exit(e(t)?141:1))}l(gm,"exitQuietlyOnClosedPipe");function fc(){return{...process.stdout.isTTY&&process.stdout.columns?{columns:process.stdout.columns}:{},out:l(e=>process.stdout.write(`${e}
`),"out"),err:l(e=>process.stderr.write(`${e}
`),"err"),json:l(e=>process.stdout.write(`${Vr(e)}
`),"json"),readStdin:l(()=>(0,p.readFileSync)(0),"readStdin"),isTTY:!!(process.stdout.isTTY&&process.stdin.isTTY),env:process.env,cwd:ym(process.env)}}l(fc,"processIO");function ym(e){try{return process.cwd()}catch(t){const n=t.code;if(n!=="ENOENT"&&n!=="ESTALE")throw t;const s=e.PWD!==void 0&&g().isAbsolute(e.PWD)?e.PWD:void 0;let i="";for(let r=s;r!==void 0&&r!==g().dirname(r);r=g().dirname(r)){const o=mn(r);if(o===void 0)continue;const a=(0,p.existsSync)(o.parent)?Yr(o.parent,o.id):void 0;i=a===void 0?` (the worktree of fork ${o.id})`:` (fork ${o.id} was removed: tombstone ${a})`;break}throw new w(`the current directory${s===void 0?"":` ${s}`} no longer exists${i}; cd to one that does`)}}l(ym,"workingDirectory");function bm(e){return{...e,out:l(t=>e.out(R(t,{newlines:"keep"})),"out"),err:l(t=>e.err(R(t)),"err")}}l(bm,"terminalSafe");const pc=require("node:util");function wm(e,t){const n=e.length,s=t.length;let i=new Array(s+1).fill(0),r=Array.from({length:s+1},(o,a)=>a);for(let o=1;o<=n;o++){const a=new Array(s+1).fill(0);a[0]=o;for(let c=1;c<=s;c++){const u=e[o-1]===t[c-1]?0:1;let d=Math.min(r[c]+1,a[c-1]+1,r[c-1]+u);o>1&&c>1&&e[o-1]===t[c-2]&&e[o-2]===t[c-1]&&(d=Math.min(d,i[c-2]+1)),a[c]=d}i=r,r=a}return r[s]}l(wm,"editDistance");function _m(e,t,n=3){const s=Math.min(3,Math.max(1,Math.floor(e.length/3))),i=[];for(const o of new Set(t)){if(o===e)continue;const a=wm(e.toLowerCase(),o.toLowerCase());a<=s?i.push({w:o,d:a}):e.length>=2&&o.startsWith(e)&&i.push({w:o,d:s+1})}i.sort((o,a)=>o.d-a.d||o.w.localeCompare(a.w));const r=i[0]?.d;return i.filter(o=>o.d===r).slice(0,n).map(o=>o.w)}l(_m,"closest");function ci(e,t,n=s=>`"${s}"`){const s=_m(e,t,2);return s.length===0?"":`; did you mean ${s.map(n).join(" or ")}?`}l(ci,"didYouMean");function Am(e,t){return t.short===void 0?`--${e}`:`-${t.short}, --${e}`}l(Am,"optionLabel");function km(e,t,n){const s={};for(const[a,c]of Object.entries(t))s[a]={type:c.kind==="flag"?"boolean":"string",...c.short?{short:c.short}:{}};const{tokens:i}=(0,pc.parseArgs)({args:e,options:s,strict:!1,allowPositionals:!0,tokens:!0}),r={positionals:[],flags:new Set,values:new Map,lists:new Map},o=Object.keys(t).map(a=>`--${a}`);for(const a of i){if(a.kind==="positional"){r.positionals.push(a.value);continue}if(a.kind==="option-terminator")continue;const c=t[a.name];if(c===void 0){const d=a.rawName.startsWith("--")||a.rawName.length===2?a.rawName:`--${a.name}`;throw new w(`${n}: unknown option ${d}${ci(d,o,h=>h)} (see \`stepchain ${n} --help\`)`)}const u=`--${a.name}`;if(c.kind==="flag"){if(a.value!==void 0)throw new w(`${n}: ${u} takes no value`);r.flags.add(a.name);continue}if(a.value===void 0)throw new w(`${n}: ${u} needs a value`);if(c.kind==="value"){if(r.values.has(a.name))throw new w(`${n}: ${u} given twice`);r.values.set(a.name,a.value)}else r.lists.set(a.name,[...r.lists.get(a.name)??[],a.value])}return r}l(km,"parseArgs");function vm(e,t){return mc(e,t,n=>n.name==="help"||n.rawName==="-h")}l(vm,"wantsHelp");function Em(e,t){return t.json===void 0?!1:mc(e,t,n=>n.name==="json"&&n.value===void 0)}l(Em,"wantsJson");function mc(e,t,n){const s={};for(const[i,r]of Object.entries(t))i!=="help"&&(s[i]={type:r.kind==="flag"?"boolean":"string",...r.short?{short:r.short}:{}});try{const{tokens:i}=(0,pc.parseArgs)({args:e,options:s,strict:!1,allowPositionals:!0,tokens:!0});for(const r of i){if(r.kind==="option-terminator")return!1;if(r.kind==="option"&&n(r))return!0}}catch{}return!1}l(mc,"flagBeforeTerminator");function q(e,t,n,s=0){const i=t.length-s;if(e.positionals.length<i)throw new w(`${n}: missing ${t.slice(e.positionals.length).map(r=>`<${r}>`).join(" ")} (see \`stepchain ${n} --help\`)`);if(e.positionals.length>t.length)throw new w(`${n}: unexpected argument ${JSON.stringify(e.positionals[t.length])}`);return e.positionals}l(q,"expectPositionals");class nt{static{l(this,"Cas")}dir;durable;constructor(t,n=!0){this.dir=t,this.durable=n}pathOf(t){if(!Pe(t))throw new w(`not a SHA-256 digest: ${JSON.stringify(t)}`);return g().join(this.dir,t.slice(0,2),t)}has(t){try{return(0,p.statSync)(this.pathOf(t)).isFile()}catch{return!1}}get(t){try{return(0,p.readFileSync)(this.pathOf(t))}catch{return}}put(t){const n=ae(t),s=this.pathOf(n);try{if((0,p.statSync)(s).size===t.length)return n}catch{}const i=g().dirname(s);(0,p.mkdirSync)(i,{recursive:!0,mode:448});const r=g().join(i,`.tmp-${process.pid}-${Math.random().toString(36).slice(2)}`),o=(0,p.openSync)(r,"wx",384);try{He(o,t),this.durable&&(0,p.fsyncSync)(o)}catch(a){throw(0,p.closeSync)(o),(0,p.unlinkSync)(r),a}return(0,p.closeSync)(o),(0,p.renameSync)(r,s),this.durable&&gt(i),n}}function di(e){return{dev:String(e.dev),ino:String(e.ino),size:String(e.size),ctime_ns:String(e.ctimeNs)}}l(di,"identityOf");function gn(e){try{return di((0,p.statSync)(e,{bigint:!0}))}catch(t){if(t.code==="ENOENT")return;throw t}}l(gn,"statIdentity");function es(e,t){return e.dev===t.dev&&e.ino===t.ino&&e.size===t.size&&e.ctime_ns===t.ctime_ns}l(es,"sameIdentity");const Sm=4096;function yn(e,t,n=Math.max(0,t-Sm)){const s=(0,p.openSync)(e,"r");try{const i=Mt(s,n,t-n);return i.length!==t-n?"":ae(i)}finally{(0,p.closeSync)(s)}}l(yn,"tailDigest");function $m(e){const t=e.HOME||(0,Ft.homedir)(),n=e.XDG_STATE_HOME,s=n?n==="~"||n.startsWith("~/")?g().join(t,n.slice(1)):n:g().join(t,".local","state");return g().resolve(s,"stepchain")}l($m,"stateDir");function xm(e){const t=e.STEPCHAIN_CHECKPOINT_KEY_PATH;return t?g().resolve(t):g().join($m(e),"checkpoint.key")}l(xm,"checkpointKeyPath");function Im(e){const t=(e.STEPCHAIN_CHECKPOINT??"").trim().toLowerCase();return!(t==="off"||t==="0"||t==="false"||t==="no")}l(Im,"checkpointsEnabled");const gc=new Map;function Xr(e){const t=(0,p.statSync)(e);if(!t.isFile()||(t.mode&63)!==0||typeof process.getuid=="function"&&t.uid!==process.getuid())return;const n=(0,p.readFileSync)(e,"latin1").trim();return/^[0-9a-f]{64}$/.test(n)?Buffer.from(n,"hex"):void 0}l(Xr,"readOwnKey");function yc(e){if(!Im(e))return;const t=xm(e),n=gc.get(t);if(n!==void 0)return n??void 0;let s;try{s=Xr(t)}catch(i){i.code==="ENOENT"&&(s=Cm(t))}return gc.set(t,s??null),s}l(yc,"checkpointKey");function Cm(e){try{const t=g().dirname(e);(0,p.mkdirSync)(t,{recursive:!0,mode:448})!==void 0&&(0,p.chmodSync)(t,448);const n=(0,p.openSync)(e,"wx",384);try{(0,p.writeSync)(n,(0,D.randomBytes)(32).toString("hex"))}finally{(0,p.closeSync)(n)}(0,p.chmodSync)(e,384)}catch(t){if(t.code!=="EEXIST")return;for(let n=0;n<50;n++){try{const s=Xr(e);if(s!==void 0)return s}catch{}Atomics.wait(new Int32Array(new SharedArrayBuffer(4)),0,0,10)}}try{return Xr(e)}catch{return}}l(Cm,"createKey");const Bm=`stepchain checkpoint v1
`;function bc(e,t){return(0,D.createHmac)("sha256",e).update(Bm).update(t).digest()}l(bc,"mac");function Zr(e,t,n,s,i,r){const o=JSON.stringify({v:1,kind:t,target:g().resolve(n),id:s,state:i}),a=Buffer.from(`${o}
${bc(r,o).toString("hex")}
`,"utf8");let c;try{return c=Om(e),c===void 0&&(c=(0,p.openSync)(e,p.constants.O_WRONLY|p.constants.O_CREAT|p.constants.O_EXCL,420)),He(c,a,0),(0,p.fstatSync)(c).size>a.length&&(0,p.ftruncateSync)(c,a.length),!0}catch{return!1}finally{c!==void 0&&(0,p.closeSync)(c)}}l(Zr,"writeCheckpoint");function Om(e){let t;try{t=(0,p.openSync)(e,p.constants.O_RDWR|wc|_c)}catch(n){const s=n.code;if(s==="ENOENT")return;if(s!=="ELOOP"&&s!=="EISDIR"&&s!=="ENXIO")throw n;(0,p.unlinkSync)(e);return}if((0,p.fstatSync)(t).isFile())return t;(0,p.closeSync)(t),(0,p.unlinkSync)(e)}l(Om,"openExisting");const wc=p.constants.O_NOFOLLOW??0,_c=p.constants.O_NONBLOCK??0;function eo(e,t,n,s){let i,r;try{r=(0,p.openSync)(e,p.constants.O_RDONLY|wc|_c);const h=(0,p.fstatSync)(r);if(!h.isFile()||h.size>1<<20)return;i=(0,p.readFileSync)(r,"utf8")}catch{return}finally{r!==void 0&&(0,p.closeSync)(r)}const o=i.split(`
`);if(o.length!==3||o[2]!==""||!/^[0-9a-f]{64}$/.test(o[1]))return;const a=o[0];if(!(0,D.timingSafeEqual)(Buffer.from(o[1],"hex"),bc(s,a)))return;let c;try{c=JSON.parse(a)}catch{return}if(typeof c!="object"||c===null)return;const u=c;if(u.v!==1||u.kind!==t)return;const d=u.id;if(!(typeof d!="object"||d===null)&&!(d.dev!==n.dev||d.ino!==n.ino||d.size!==n.size||d.ctime_ns!==n.ctime_ns)&&!(typeof u.state!="object"||u.state===null))return u.state}l(eo,"readCheckpoint");const Ac="journal";function kc(e){return`${e}.checkpoint`}l(kc,"journalCheckpointFile");function Rm(e,t,n){const s=eo(kc(e),Ac,t,n);if(s===void 0)return;const{offset:i,steps:r,head:o,tail_from:a,tail_sha256:c}=s;if(!(typeof i!="number"||!Number.isSafeInteger(i)||String(i)!==t.size)&&!(typeof r!="number"||!Number.isSafeInteger(r)||r<0)&&!(typeof o!="string"||!Pe(o)||typeof c!="string")&&!(typeof a!="number"||!Number.isSafeInteger(a)||a<0||a>i)&&!(i-a>to)){try{if(yn(e,i,a)!==c)return}catch{return}return{offset:i,steps:r,head:o}}}l(Rm,"loadJournalCheckpoint");const to=4096;function Tm(e,t,n,s,i){if(String(n.offset)!==t.size)return;let r,o;if(i!==void 0&&i.length>0&&i.length<=n.offset){const a=i.subarray(Math.max(0,i.length-to));o=n.offset-a.length,r=ae(a)}else{o=Math.max(0,n.offset-to);try{r=yn(e,n.offset,o)}catch{return}}Zr(kc(e),Ac,e,t,{offset:n.offset,steps:n.steps,head:n.head,tail_from:o,tail_sha256:r},s)}l(Tm,"saveJournalCheckpoint");const no={offset:0,head:xe,steps:0};class vc extends N{static{l(this,"JournalRecoveryError")}file;line;kind;name="JournalRecoveryError";constructor(t,n,s,i){super(`${t}:${n}: ${s}: ${i}; refusing to append. Remedy: move the journal aside (mv ${t} ${t}.corrupt) so a fresh chain can start, and keep it for \`stepchain verify\``),this.file=t,this.line=n,this.kind=s}}const so=Al;function Nm(e,t){const n=[];let s=t.steps,i=t.head;for(const r of e)n.push(!r.seeded&&r.rows>0&&r.guessedBase!==s?{steps:s,prevHash:i}:null),s+=r.rows,r.last!==void 0&&(i=r.last.step_hash);return n}l(Nm,"seedsOf");function Ec(e,t,n,s){const i=e.first;if(e.seeded||i===void 0)return[];const r=[];return e.guessedBase!==n&&i.seq!==void 0&&r.push({line:t,kind:"seq_mismatch",message:`seq ${String(i.seq)}, expected ${n}`}),i.prev_hash!==void 0&&i.prev_hash!==s&&r.push({line:t,kind:"prev_hash_mismatch",message:s===null?`chain break: prev_hash ${so(i.prev_hash)}, but the previous row has no step_hash string`:`chain break: prev_hash ${so(i.prev_hash)} does not match the previous step_hash ${so(s)}`}),r}l(Ec,"boundaryFaults");const Sc=l((e,t)=>e.line===null?e:{...e,line:e.line+t,...e.last_line===void 0?{}:{last_line:e.last_line+t}},"shifted");function $c(e,t,n,s,i){const r=Nm(t,{steps:0,head:xe}),o=r.flatMap((m,b)=>m===null?[]:[b]);if(o.length>0){const m=Lr(e,o.map(b=>[t[b].start,t[b].end]),o.map(b=>r[b]),n,s,i);o.forEach((b,_)=>t[b]=m[_])}const a=new Ys,c=n.collectRefs?new Set:void 0,u=n.indexEvery===void 0?void 0:{every:n.indexEvery,points:[],prevs:[]};let d=0,h=xe,f=0;for(const m of t){const b=m.first?.line??0,_=Ec(m,b+f,d,h);let k=_.length===0;for(const S of m.faults.list){if(!k&&S.line!==null&&(S.line>b||S.line===b&&dn[S.kind]>dn.seq_mismatch)){for(const v of _)a.add(v);k=!0}a.add(Sc(S,f))}if(!k)for(const S of _)a.add(S);if(m.faults.omitted>0&&a.addOmitted(m.faults.omitted),c!==void 0)for(const S of m.refs??[])c.add(S);if(u!==void 0&&m.index!==void 0){const S=m.index;for(let v=0;v<S.length;v+=3)u.points.push(d+S[v],S[v+1],f+S[v+2]);for(const v of m.indexPrev??[])u.prevs.push(v)}d+=m.rows,m.last!==void 0&&(h=m.last.step_hash),f+=m.lines}const y={faults:a,head:d>0?h??"":xe,steps:d,lines:f};return c!==void 0&&(y.refs=Array.from(c)),u!==void 0&&(y.index=u),y}l($c,"stitchVerify");function jm(e,t,n,s,i){let r,o,a=0,c,u,d,h=n.steps,f=n.head,y=0;for(const A of t){const x=A.recovery;if(r===void 0){const E=A.first?.line??0,B=[...Ec(A,E,h,f),...A.faults.list.slice(0,4)];B.sort(($,C)=>($.line??0)-(C.line??0)||dn[$.kind]-dn[C.kind]),B[0]!==void 0&&(r=Sc(B[0],y))}x.firstNonParsing!==void 0&&o===void 0&&(o={...x.firstNonParsing,line:x.firstNonParsing.line+y}),o!==void 0&&c===void 0&&(x.parsingAfterNonParsing!==void 0?c=x.parsingAfterNonParsing+y:x.firstNonParsing===void 0&&x.firstParsing!==void 0&&(c=x.firstParsing+y)),a+=x.nonParsing,x.lastParsing!==void 0&&(u=x.lastParsing),x.lastEnding!==void 0&&(d=x.lastEnding),h+=A.rows,A.last!==void 0&&(f=A.last.step_hash),y+=A.lines}let m;const b=l(A=>(m??=i())+A,"abs"),_=[];if(r!==void 0&&r.line!==null){const A=r;_.push({line:A.line,make:l(()=>new vc(e,b(A.line),A.kind,A.message),"make")})}if(o!==void 0&&(c!==void 0||a>1)){const A=o,x=c!==void 0?`interior corruption: line ${b(c)} after it parses as JSON, so this is no torn write`:`${a} lines do not parse as JSON, and a torn write leaves at most one`;_.push({line:A.line,make:l(()=>new vc(e,b(A.line),"malformed_json",`${A.reason} (${x})`),"make")})}if(_.sort((A,x)=>A.line-x.line),_[0]!==void 0)throw _[0].make();const k=h>0?f??"":n.head,S={validEnd:s,head:k,steps:h},v=u?.next??n.offset;return u!==void 0&&u.ending==="eof"?(S.validEnd=v,S.unterminatedRowEnd=v):v<s&&(o!==void 0||d==="eof")&&(S.validEnd=v,S.tornFrom=v),S}l(jm,"stitchRecovery");function Fm(e,t,n,s){const i=nc({kind:"file",path:e},t.offset,n,{strict:!1,recovery:!0},s);return jm(e,i,t,n,()=>t.offset===0?0:Lm(e,t.offset))}l(Fm,"checkTail");function xc(e){process.stderr.write(`${R(`stepchain: ${e.file}: moved a torn tail of ${e.bytes} byte${e.bytes===1?"":"s"} (a write that never finished) to ${e.sideFile}`)}
`)}l(xc,"printTornTailNotice");function Mm(e,t,n,s,i=xc){let r=t.validEnd;if(t.unterminatedRowEnd!==void 0)Jr(e,t.unterminatedRowEnd,s),r=t.unterminatedRowEnd+1;else if(t.tornFrom!==void 0){const o=qr(e,t.tornFrom,s);i({file:e,sideFile:o,bytes:n-t.tornFrom})}return{offset:r,head:t.head,steps:t.steps}}l(Mm,"repairTail");function Lm(e,t){const n=(0,p.openSync)(e,"r");try{const s=Buffer.allocUnsafe(1048576);let i=0,r=!1;for(let o=0;o<t;){const a=(0,p.readSync)(n,s,0,Math.min(s.length,t-o),o);if(a===0)break;for(let c=0;c<a;c++){const u=s[c];(u===10||r)&&i++,r=u===13}o+=a}return r?i+1:i}finally{(0,p.closeSync)(n)}}l(Lm,"countLinesInFile");function Ic(e,t){const n=e.faults;return e.steps===0&&n.add({line:null,kind:"empty_journal",message:e.lines===0?"journal has no steps":"journal has no steps (no line holds a row)"}),t.expectedHead!==void 0&&t.expectedHead!==e.head&&n.add({line:null,kind:"head_mismatch",message:`head ${e.head}, expected ${t.expectedHead}`}),{ok:n.total===0,head_hash:e.head,steps:e.steps,errors:n.list,fault_count:n.total,errors_omitted:n.omitted}}l(Ic,"finish");function Cc(e,t){return{strict:e.strict??!1,...t}}l(Cc,"chunkOptions");function ui(e,t,n,s,i={}){const r=Cc(n,i),o=nc(e,0,t,r,s,n.onProgress),a=$c(e,o,r,s,n.onProgress);return{result:Ic(a,n),stitched:a}}l(ui,"verifySource");function Bc(e,t={},n){return ui({kind:"bytes",bytes:e},e.length,t,n).result}l(Bc,"verifyJournalBytes");function Oc(e,t={},n){const{result:s,stitched:i}=ui({kind:"bytes",bytes:e},e.length,t,n,{collectRefs:!0});return{...s,blob_refs:i.refs??[]}}l(Oc,"verifyJournalBytesWithRefs");function Pm(e,t={},n){const s=io(e),{result:i,stitched:r}=Rc(e,()=>ui({kind:"file",path:e},s,t,n,{...t.collectRefs?{collectRefs:!0}:{},...t.indexEvery===void 0?{}:{indexEvery:t.indexEvery}}));return{...i,size:s,lines:r.lines,...r.refs===void 0?{}:{blob_refs:r.refs},...r.index===void 0?{}:{index:r.index}}}l(Pm,"verifyJournalFileIndexed");function Dm(e){const t=hi(e),n=Oc(t,{strict:!0});if(n.ok){const{blob_refs:c,...u}=n;return{result:u,bytes:t,blob_refs:c}}const s=bn(t),{entries:i,...r}=s;if(!s.ok)return{result:r,bytes:Buffer.alloc(0),blob_refs:[]};const o=Buffer.from(`
`),a=[];for(const c of i)a.push(c.canonical?c.bytes:Buffer.from(ke(Fl(c.row)),"utf8"),o);return{result:r,bytes:Buffer.concat(a),blob_refs:n.blob_refs}}l(Dm,"readCanonicalJournal");function bn(e,t={}){const n=[],s=Cc(t,{fast:!1}),i=pn(e,0,e.length,0,s,void 0,(o,a,c,u,d)=>{c!==void 0&&n.push({line:o,row:c,bytes:Buffer.from(u),canonical:d})});return{...Ic($c({kind:"bytes",bytes:e},[i],s),t),entries:n}}l(bn,"readJournalBytes");function Hm(e){const t=[];return pn(e,0,e.length,0,{strict:!1,fast:!1},void 0,(n,s)=>t.push({line:n,seq:s.seq,step_hash:s.step_hash??null})),t}l(Hm,"walkedRows");function io(e){let t;try{t=(0,p.statSync)(e)}catch{throw new w(`${e}: no such journal file`)}if(!t.isFile())throw new w(`${e}: not a regular file`);return t.size}l(io,"statJournalFile");function Rc(e,t){try{return t()}catch(n){const s=n.code;throw s!==void 0&&!(n instanceof w)?new w(`${e}: cannot read: ${s}`):n}}l(Rc,"fileErrors");function hi(e){io(e);try{return(0,p.readFileSync)(e)}catch(t){throw new w(`${e}: cannot read: ${t.code??t.message}`)}}l(hi,"readJournalFileBytes");function ro(e,t={},n){const s=io(e);return Rc(e,()=>ui({kind:"file",path:e},s,t,n).result)}l(ro,"verifyJournalFile");function oo(e,t={}){return bn(hi(e),t)}l(oo,"readJournalFile");function st(e){const t=g().resolve(e).split(g().sep),n=t.length;if(n>=5&&t[n-2]==="journal"&&t[n-3]==="runtime"&&t[n-4]===".sdd")return t.slice(0,n-4).join(g().sep)||g().sep}l(st,"projectRootOf");function Qm(){return(performance.timeOrigin+performance.now())/1e3}l(Qm,"nowSeconds");function Tc(e){const t=fi("model",e.model),n=fi("prompt",e.prompt),s=fi("tool_call",e.tool_call),i=fi("tool_result",e.tool_result);if(e.input!==void 0&&e.inputHash!==void 0)throw new w("give the input or its hash, not both");if(e.inputHash!==void 0&&!Pe(e.inputHash))throw new w(`input hash must be 64 lowercase hex digits, got ${JSON.stringify(e.inputHash)}`);const r=e.ts??Qm();if(!Number.isFinite(r))throw new w("ts must be a finite number");return{model:t,prompt:n,tool_call:s,tool_result:i,ts:r}}l(Tc,"validateStep");function fi(e,t){if(t===void 0)return null;try{Kn([t])}catch(n){throw n instanceof mt&&n.message.includes("nested deeper")?new w(`${e}: nested deeper than ${ln-1} levels (with the row around it, more than the ${ln} a journal line may hold)`):n instanceof mt?new w(`${e}: ${n.message}`):n}return t}l(fi,"checkWritable");class ao{static{l(this,"Journal")}dir;file;lockFile;cas;durable;lockTimeoutMs;env;onTornTail;state=no;known;expectNew;key=null;constructor(t,n){this.dir=t,this.file=g().join(t,pe),this.lockFile=`${this.file}.lock`,this.durable=(n.durability??"durable")==="durable",this.env=n.env??process.env,this.lockTimeoutMs=n.lockTimeoutMs??oc(this.env),this.onTornTail=n.onTornTail;const s=st(t);this.cas=n.cas??(s===void 0?void 0:new nt(tt(s),this.durable))}static open(t,n={}){const s=new ao(t,n),i=st(t);if(i!==void 0&&gn(s.file)===void 0&&s.refuseIfRemoved(),i!==void 0&&mn(i)!==void 0?em(i,t):Qe(t),process.platform!=="win32")try{(0,p.chmodSync)(t,448)}catch{}return s.locked(()=>s.catchUp()),s}get head(){return this.state.head}get length(){return this.state.steps}append(t){return this.appendMany([t])[0]}appendMany(t){const n=t.map(s=>this.prepare(s));return this.locked(s=>{this.catchUp();let i=this.state.head,r=this.state.steps;const o=[];for(const d of n){const h={prev_hash:i,...d.fields},f={...h,seq:r,step_hash:jr(h),blob_refs:d.refs,ts:d.ts};o.push(f),i=f.step_hash,r++}const a=Buffer.from(o.map(d=>`${Ml(d)}
`).join(""),"utf8");s.refresh(),s.assertHeld();const{after:c,untouched:u}=zr(this.file,a,this.durable,this.known??this.expectNew);return this.state={offset:this.state.offset+a.length,head:i,steps:r},this.known=u?di(c):void 0,ve("journal:after-write",this.env),this.saveCheckpoint(a),o})}read(t={}){return oo(this.file,t)}prepare(t){const{model:n,prompt:s,tool_call:i,tool_result:r,ts:o}=Tc(t),a=[],c=l(d=>{if(this.cas===void 0)throw new w(`${this.dir}: no blob store for this journal (give a CAS directory)`);const h=this.cas.put(d);return a.includes(h)||a.push(h),h},"store"),u=t.input!==void 0?c(t.input):t.inputHash??ae(new Uint8Array);for(const d of t.blobs??[])c(d);return{fields:{input_hash:u,model:n,prompt:s,tool_call:i,tool_result:r},refs:a,ts:o}}refuseIfRemoved(){const t=st(this.dir);t!==void 0&&hc(t,g().basename(g().resolve(this.dir)),this.file)}locked(t){let n;try{n=li(this.lockFile,this.lockTimeoutMs===void 0?{}:{timeoutMs:this.lockTimeoutMs})}catch(s){throw(0,p.existsSync)(this.dir)||this.refuseIfRemoved(),s}try{return t(n)}finally{n()}}checkpointKey(){return this.key===null&&(this.key=yc(this.env)),this.key}saveCheckpoint(t){const n=this.checkpointKey();n!==void 0&&this.known!==void 0&&Tm(this.file,this.known,this.state,n,t)}catchUp(){let t;try{t=gn(this.file)}catch(u){throw W(u)?X(u,this.file,"cannot open"):u}if(t===void 0){if(this.known!==void 0&&this.state.steps>0)throw new N(`${this.file}: the journal (${this.state.steps} steps, head ${this.state.head}) disappeared; refusing to start a fresh chain in its place`);this.refuseIfRemoved(),this.state=no,this.known=void 0,this.expectNew="new";return}if(this.expectNew=void 0,this.known!==void 0&&es(t,this.known))return;const n=this.checkpointKey(),s=n===void 0?void 0:Rm(this.file,t,n);if(s!==void 0){this.state=s,this.known=t;return}const i=Number(t.size),r=no,o=Fm(this.file,r,i,this.env);this.state=Mm(this.file,o,i,this.durable,this.onTornTail);const a=gn(this.file),c=o.unterminatedRowEnd!==void 0||o.tornFrom!==void 0;this.known=a!==void 0&&!c&&es(a,t)?a:void 0,this.saveCheckpoint()}}function wn(e,t,n=!0){if(!(e.includes("/")||e.includes(g().sep)||e.endsWith(".jsonl"))){const r=Be(t,e),o=g().join(r,pe);if(Ce(o)!=="file"){const a=Um(t,e);if(a!==void 0&&n)return{file:g().join(a,pe),dir:a,agentId:e};if(a!==void 0){const c=g().join(t,".sdd","worktrees",e);throw new w(`${e} is a fork of this project, whose journal is ${g().join(a,pe)}: record its steps there (--root ${c}, or run from inside it)`)}}if(n&&Ce(o)!=="file")throw new w(`no journal for agent ${JSON.stringify(e)} (looked for ${o}; to name a directory write ./${e})`);return{file:o,dir:r,agentId:e}}const i=Ce(e);if(i==="dir"){const r=g().join(e,pe);if(n&&Ce(r)!=="file")throw new w(`${e}: no ${pe} in this directory`);return{file:r,dir:e,agentId:g().basename(g().resolve(e))}}if(i==="file"){const r=g().dirname(e);return{file:e,dir:r,agentId:g().basename(g().resolve(r))}}throw new w(n?`${e}: no such journal file or directory`:`${e}: no such journal directory (a new journal is started by agent id, under --root)`)}l(wn,"resolveJournal");function Um(e,t){const n=g().join(e,".sdd","worktrees",t),s=Be(n,t),i=[g().join(e,".sdd"),g().join(e,".sdd","worktrees"),n];for(let r=s;r.length>n.length;r=g().dirname(r))i.splice(3,0,r);try{for(const r of i)if(!(0,p.lstatSync)(r).isDirectory())return;if(!(0,p.lstatSync)(g().join(s,pe)).isFile())return}catch{return}return s}l(Um,"forkJournalDir");function Nc(e){return e.line===null||e.last_line===void 0||e.count===void 0?e.message:`${e.count.toLocaleString("en-US")} faults on lines ${e.line}-${e.last_line}, the first: ${e.message}`}l(Nc,"faultMessage");function pi(e,t){return t.line===null?`${e}: ${t.kind}: ${t.message}`:t.last_line===void 0||t.count===void 0?`${e}:${t.line}: ${t.kind}: ${t.message}`:`${e}:${t.line}-${t.last_line}: ${t.kind}: ${t.count.toLocaleString("en-US")} faults on consecutive lines, the first: ${t.message}`}l(pi,"describeFault");function lo(e,t){const n=t.errors.map(s=>pi(e,s));return t.errors_omitted>0&&n.push(`${e}: \u2026 and ${t.errors_omitted.toLocaleString("en-US")} more fault${t.errors_omitted===1?"":"s"} not listed`),n}l(lo,"describeFaults");function jc(e,t){const n=t.errors[0],s=t.fault_count-(n.count??1);return`${pi(e,n)}${s>0?` (and ${s} more fault${s>1?"s":""})`:""}`}l(jc,"firstFaultLine");function co(e,t={}){const n=oo(e,t);if(!n.ok)throw new N(jc(e,n));return n}l(co,"readVerifiedJournal");const Gm=256,Wm=8;class uo extends N{static{l(this,"UnverifiedJournalError")}file;result;name="UnverifiedJournalError";constructor(t,n){super(jc(t,n)),this.file=t,this.result=n}}class _n{static{l(this,"VerifiedSteps")}file;head_hash;length;result;blobRefs;index;size;lines;cache=new Map;constructor(t,n){this.file=t,this.result=n,this.head_hash=n.head_hash,this.length=n.steps,this.index=n.index,this.size=n.size,this.lines=n.lines,this.blobRefs=n.blob_refs}static open(t,n={}){const s=Pm(t,{indexEvery:Gm,...n.collectRefs?{collectRefs:!0}:{},...n.onProgress===void 0?{}:{onProgress:n.onProgress}},n.env);if(!s.ok)throw new uo(t,s);return new _n(t,s)}at(t){if(!Number.isInteger(t)||t<0||t>=this.length)return;const n=this.blockOf(t);return this.block(n).rows[t-this.index.points[n*3]]}span(t){if(!Number.isInteger(t)||t<0||t>=this.length)throw new RangeError(`no step ${t}`);const n=this.blockOf(t),s=(t-this.index.points[n*3])*2,i=this.block(n).spans;return{start:i[s],next:i[s+1]}}slice(t=0,n=this.length){const s=Math.max(0,t<0?this.length+t:Math.min(t,this.length)),i=Math.max(s,n<0?this.length+n:Math.min(n,this.length)),r=[];for(let o=s;o<i;o++)r.push(this.at(o));return r}blockOf(t){const n=this.index.points;let s=0,i=n.length/3-1;for(;s<i;){const r=s+i+1>>1;n[r*3]<=t?s=r:i=r-1}return s}block(t){const n=this.cache.get(t);if(n!==void 0)return this.cache.delete(t),this.cache.set(t,n),n;const s=this.index.points,i=s[t*3],r=t+1<s.length/3?s[(t+1)*3]:this.length,o=this.index.prevs[t],a=t+1<this.index.prevs.length?this.index.prevs[t+1]:this.head_hash,c=this.readRows(s[t*3+1],s[t*3+2],i,r-i,o,a);return this.cache.set(t,c),this.cache.size>Wm&&this.cache.delete(this.cache.keys().next().value),c}changed(t){throw new N(`${this.file}: the journal changed since it was verified (${t}); verify it again`)}readRows(t,n,s,i,r,o){const a=[],c=[];let u;try{u=(0,p.openSync)(this.file,"r")}catch(d){throw new w(`${this.file}: cannot read: ${d.code??d.message}`)}try{let d=Buffer.allocUnsafe(1048576),h=t,f=n-1;for(;a.length<i&&h<this.size;){const y=Math.min(d.length,this.size-h),m=qm(u,d,y,h);m===0&&this.changed("it is shorter");const b=h+m>=this.size;let _=m;if(!b){const k=d.lastIndexOf(10,m-1);if(k<0){d=Buffer.allocUnsafe(d.length*2);continue}_=k+1}Vs(d,0,_,(k,S,v)=>{if(f++,a.length>=i)return;const A=zm(d,k,S);if(A.kind==="blank")return;if(A.kind!=="row"||A.row===void 0)return this.changed(`line ${f} is no row`);const x=A.view,E=a[a.length-1];if(x.seq!==s+a.length||x.computedHash!==x.step_hash)return this.changed(`line ${f} is not the row verified there`);if(x.prev_hash!==(E===void 0?r:E.row.step_hash))return this.changed(`line ${f} does not link to the row before`);const B=d.subarray(k,S);a.push({line:f,row:A.row,bytes:A.canonical?Buffer.from(B):Buffer.from(un(le(B)),"utf8"),canonical:A.canonical}),c.push(h+k,h+v)}),h+=_}return a.length<i&&this.changed("rows are missing"),a[a.length-1].row.step_hash!==o&&this.changed("a block of rows does not end where verified"),{rows:a,spans:c}}finally{(0,p.closeSync)(u)}}}function zm(e,t,n){const s=n-t>0&&n-t<268435456?Or(e.toString("latin1",t,n),0,n-t):void 0;if(s===void 0)return Fr(e.subarray(t,n));const i=ye(e.toString("latin1",t,n));return G(i)?Pl(i,void 0,{computedHash:s.computedHash,canonical:!0}):Fr(e.subarray(t,n))}l(zm,"readLine");function qm(e,t,n,s){let i=0;for(;i<n;){const r=(0,p.readSync)(e,t,i,n-i,s+i);if(r===0)break;i+=r}return i}l(qm,"readAll");function Jm(e,t,n){if(!Number.isInteger(t)||!Number.isInteger(n)||t<0||n<t)throw new InputError(`bad step window [${t}..${n}]`);const s=_n.open(e);if(n>=s.length)throw new InputError(`${e}: step ${n} is out of range (the journal has ${s.length} steps, 0..${s.length-1})`);return s.slice(t,n+1)}l(Jm,"readWindow");function $1(e,t){return Jm(e,t,t)[0]}l($1,"readStep");function x1(e){return _n.open(e).head_hash}l(x1,"journalHead");const Fc=require("node:child_process"),Km=["core.fsmonitor=","core.hooksPath=/dev/null","core.pager=cat","core.editor=:","sequence.editor=:","core.askPass=","credential.helper=","core.sshCommand=ssh","core.alternateRefsCommand=: no alternate refs","protocol.allow=never","protocol.file.allow=always","protocol.http.allow=always","protocol.https.allow=always","protocol.ssh.allow=always","submodule.recurse=false","fetch.recurseSubmodules=false","status.submoduleSummary=false","gc.auto=0","maintenance.auto=false","commit.gpgSign=false","core.trustctime=true","core.checkStat=default","core.ignoreStat=false"],Ym={"rev-parse":"plain","symbolic-ref":"plain","show-ref":"plain","for-each-ref":"plain","update-ref":"plain","commit-tree":"plain",config:"plain",init:"plain",add:"named","write-tree":"named",status:"named",commit:"named","read-tree":"named",worktree:"named",branch:"named","cat-file":"named","ls-tree":"named","rev-list":"named","merge-base":"named",fetch:"named"},Vm=/^--(?:textconv|ext-diff|upload-pack|receive-pack|exec)(?:=|$)/,ho={filter:["clean=","smudge=","process=","required=false"],remote:["uploadpack=git-upload-pack","receivepack=git-receive-pack"]},Xm=`^(${Object.keys(ho).join("|")})\\.|^extensions\\.partialclone$`;function Zm(e,t){let n=0;const s=[];for(;e[n]==="-c"&&n+1<e.length;)s.push("-c",e[n+1]),n+=2;const i=e[n],r=i===void 0?void 0:Ym[i];if(i===void 0||r===void 0)throw new Error(`stepchain does not run \`git ${i??""}\` (src/git/pins.ts lists the commands it runs)`);const o=e.indexOf("--");for(const d of e.slice(n+1,o<0?void 0:o))if(Vm.test(d))throw new Error(`stepchain does not run git with ${d.split("=")[0]}`);const a=Km.flatMap(d=>["-c",d]),c=r==="named"?eg(t()).flatMap(d=>["-c",d]):[],u=i==="fetch"?[i,"--upload-pack=git-upload-pack",...e.slice(n+1)]:e.slice(n);return{argv:[...s,...a,...c,...u],command:i}}l(Zm,"gitCommandLine");function eg(e){const t=new Map,n=new Map;for(const r of e.split("\0")){const o=r.split(`
`,1)[0];n.set(o.toLowerCase(),r.slice(o.length+1));const a=o.indexOf("."),c=o.lastIndexOf(".");if(a<0||c<=a)continue;const u=o.slice(0,a).toLowerCase();if(ho[u]===void 0)continue;const d=o.slice(a+1,c);if(d.includes("="))throw new N(`git configuration: ${u} ${JSON.stringify(d)} holds "=", so stepchain cannot switch its programs off on the command line; refusing to run git (rename it)`);t.has(u)||t.set(u,new Set),t.get(u).add(d)}const s=n.get("extensions.partialclone");for(const r of t.get("remote")??[]){const o=l(c=>n.get(`remote.${r.toLowerCase()}.${c}`),"own");if((s===r||/^(true|yes|on|1)$/i.test(o("promisor")??""))&&(o("uploadpack")!==void 0||n.has(`remote.${r}.uploadpack`)))throw new N(`git configuration: remote.${r}.uploadpack names a program for the partial clone's lazy fetches; refusing to run git (unset it)`)}const i=[];for(const[r,o]of t)for(const a of[...o].sort())for(const c of ho[r])i.push(`${r}.${a}.${c}`);return i}l(eg,"namedPins");function tg(e){let t;try{t=(0,p.realpathSync)(e)}catch{t=g().resolve(e)}const n=t.split(g().sep);for(let s=n.length-3;s>=1;s--)if(n[s]===".sdd"&&n[s+1]==="worktrees"&&n[s+2]!=="")return{worktree:n.slice(0,s+3).join(g().sep)||g().sep,parentRoot:n.slice(0,s).join(g().sep)||g().sep}}l(tg,"enclosingForkWorktree");const Mc=new Map;function An(e){try{return(0,p.realpathSync)(e)}catch{return g().resolve(e)}}l(An,"real");function Lc(e,t){let n;try{n=(0,p.readFileSync)(e,"utf8")}catch{return}if(!n.startsWith(t))return;const s=n.slice(t.length).replace(/[\r\n]+$/,"");return s===""?void 0:g().resolve(g().dirname(e),s)}l(Lc,"readLink");function ng(e,t){const n=tg(e);if(n===void 0)return{};const s=g().join(n.worktree,".git"),i=l(d=>{throw new N(`${s}: ${d}; a worktree stepchain created is used only while its .git points at the repository that created it (refusing to run git in it)`)},"refuse");let r;try{r=(0,p.lstatSync)(s)}catch(d){const h=d.code;return i(h==="ENOENT"||h==="ENOTDIR"?"is missing":`cannot be read (${h??d.message})`)}r.isSymbolicLink()&&i("is a symbolic link"),r.isDirectory()&&i("is a directory (a repository of its own)"),r.isFile()||i("is not a regular file");const o=Lc(s,"gitdir: ");if(o===void 0)return i('is not a "gitdir: <path>" file');const a=An(n.parentRoot);let c=Mc.get(a);if(c===void 0){const d=t(n.parentRoot);if(d===void 0)return i(`its parent ${n.parentRoot} is not in a git work tree`);c=An(d),Mc.set(a,c)}An(g().dirname(o))!==An(g().join(c,"worktrees"))&&i(`names ${o}, not a worktree of ${c}`);const u=Lc(g().join(o,"gitdir"),"");return(u===void 0||An(u)!==An(s))&&i(`names ${o}, which ${c} registered for another worktree`),{GIT_DIR:o,GIT_WORK_TREE:n.worktree}}l(ng,"forkWorktreeEnv");class it extends Error{static{l(this,"GitCommandError")}args;status;stderr;name="GitCommandError";constructor(t,n,s){super(`git ${t.filter(i=>!i.includes(`
`)).slice(0,3).join(" ")}: ${sg(s)||`exit ${n}`}`),this.args=t,this.status=n,this.stderr=s}}function sg(e){return e.split(`
`).map(t=>t.trim()).find(t=>t.length>0&&!t.startsWith("hint:"))??""}l(sg,"firstLine");const ig=new Set(["GIT_SSL_CAINFO","GIT_SSL_CAPATH","GIT_SSL_CERT","GIT_SSL_KEY","GIT_SSL_NO_VERIFY","GIT_SSL_VERSION","GIT_SSL_CIPHER_LIST","GIT_HTTP_PROXY_AUTHMETHOD","GIT_HTTP_USER_AGENT","GIT_HTTP_LOW_SPEED_LIMIT","GIT_HTTP_LOW_SPEED_TIME","GIT_PROXY_SSL_CERT","GIT_PROXY_SSL_KEY","GIT_PROXY_SSL_CAINFO","GIT_AUTHOR_NAME","GIT_AUTHOR_EMAIL","GIT_AUTHOR_DATE","GIT_COMMITTER_NAME","GIT_COMMITTER_EMAIL","GIT_COMMITTER_DATE","GIT_CONFIG_NOSYSTEM","GIT_TRACE","GIT_TRACE2","GIT_TRACE2_EVENT","GIT_TRACE2_PERF","GIT_TRACE_PACKET","GIT_TRACE_PERFORMANCE","GIT_TRACE_SETUP","GIT_CURL_VERBOSE"]);function rg(e){const t=e.toUpperCase();return!t.startsWith("GIT_")||ig.has(t)}l(rg,"keepsGitVariable");function og(e=process.env,t={}){const n={};for(const[s,i]of Object.entries(e))i!==void 0&&rg(s)&&(n[s]=i);return n.GIT_TERMINAL_PROMPT="0",n.GIT_NO_REPLACE_OBJECTS="1",{...n,...t}}l(og,"gitEnv");function Pc(e,t,n){const s=ng(e,o=>{const a=yt(o,["rev-parse","--git-common-dir"],{env:n.env});return a===void 0?void 0:g().resolve(o,a.replace(/\n$/,""))}),i=og(n.env,{...n.extra,...s});return{line:Zm(t,()=>ag(e,n)),env:i}}l(Pc,"prepare");function ag(e,t){try{return Oe(e,["config","--null","--get-regexp",Xm],{env:t.env})}catch(n){if(n instanceof it&&n.status===1)return"";throw n}}l(ag,"namedConfig");function Oe(e,t,n={}){const{line:s,env:i}=Pc(e,t,n),r=(0,Fc.spawnSync)("git",s.argv,{cwd:e,env:i,encoding:"utf8",input:n.input??"",maxBuffer:1<<28,windowsHide:!0});if(r.error)throw new it(t,null,r.error.message);if(r.status!==0)throw new it(t,r.status,r.stderr);return r.stdout}l(Oe,"gitSync");function Re(e,t,n={}){let s;try{s=Pc(e,t,n)}catch(o){return Promise.reject(o instanceof Error?o:new Error(String(o)))}const{line:i,env:r}=s;return new Promise((o,a)=>{const c=(0,Fc.spawn)("git",i.argv,{cwd:e,env:r,stdio:["pipe","pipe","pipe"],windowsHide:!0}),u=[];let d="";c.stdout.on("data",h=>u.push(h)),c.stderr.on("data",h=>{d.length<65536&&(d+=h.toString("utf8"))}),c.stdin.on("error",()=>{}),c.on("error",h=>a(new it(t,null,h.message))),c.on("close",h=>{h===0?o(Buffer.concat(u)):a(new it(t,h,d))}),c.stdin.end(n.stdin??n.input??"")})}l(Re,"exec_gitRun");function yt(e,t,n={}){try{return Oe(e,t,n)}catch(s){if(s instanceof it)return;throw s}}l(yt,"gitTry");async function Ue(e,t,n){return(await Re(e,t,{env:n})).toString("utf8")}l(Ue,"gitText");const ts=[["--show-toplevel"],["--absolute-git-dir"],["--git-common-dir"],["--git-path","index"]];function fo(e){return e.endsWith(`
`)?e.slice(0,-1):e}l(fo,"oneValue");function mi(e,t){if(!(0,p.existsSync)(e))return;const n=["rev-parse","--is-inside-work-tree",...ts.flat()],s=["HEAD^{commit}","--symbolic-full-name","HEAD"];let i=yt(e,[...n,...s],{env:t}),r=1+ts.length+2;if(i===void 0&&(i=yt(e,n,{env:t}),r=1+ts.length),i===void 0)return;let o=fo(i).split(`
`);if(o[0]!=="true")return;if(o.length!==r){const m=[];for(const _ of ts){const k=yt(e,["rev-parse",..._],{env:t});if(k===void 0)return;m.push(fo(k))}const b=r>1+ts.length?yt(e,["rev-parse",...s],{env:t}):void 0;o=["true",...m,...b===void 0?[]:fo(b).split(`
`)]}const a=o[1],c=o[2],u=g().resolve(e,o[3]),d=g().resolve(e,o[4]),h=o[5]!==void 0&&/^[0-9a-f]{40,64}$/.test(o[5])?o[5]:void 0,f=o[6];let y;if(h!==void 0)y=f?.startsWith("refs/heads/")?f.slice(11):void 0;else{const m=yt(e,["symbolic-ref","-q","HEAD"],{env:t})?.trim();y=m?.startsWith("refs/heads/")?m.slice(11):void 0}return{top:a,gitDir:c,commonDir:u,indexFile:d,head:h,branch:y}}l(mi,"repo_repoInfo");function gi(e,t){const n=mi(e,t);if(n===void 0)throw new w(`${e}: not inside a git work tree (fork needs a git repository)`);return n}l(gi,"requireRepo");function lg(e,t,n){return yt(e,["rev-parse","-q","--verify",`${t}^{commit}`],{env:n})?.trim()||void 0}l(lg,"resolveRef");function yi(e,t,n){return yt(e,["show-ref","--verify","-q",`refs/heads/${t}`],{env:n})!==void 0}l(yi,"branchExists");function Dc(e){return e.length>0&&!e.startsWith(".")&&!e.endsWith(".")&&!e.endsWith(".lock")&&!e.includes("..")&&!e.includes("@{")&&e!=="@"&&!/[\x00-\x20\x7f~^:?*[\\/]/.test(e)}l(Dc,"isRefComponent");function Hc(e,t,n){const s=Oe(e,["for-each-ref","--format=%(refname)%00%(objectname)%00%(contents)%00%00",t],{env:n}),i=[];for(const r of s.split("\0\0")){const o=r.replace(/^\n/,"");if(o.trim()==="")continue;const[a,c,u]=o.split("\0");a&&c&&i.push({ref:a,commit:c,message:u??""})}return i}l(Hc,"listRefs");function po(e,t,n){t.length!==0&&Oe(e,["update-ref","--stdin"],{env:n,input:`start
${t.join(`
`)}
prepare
commit
`})}l(po,"updateRefs");const ns="refs/stepchain/snapshots",Qc=[".",":(exclude,glob)**/.sdd/**"];function bi(e,t){const n=l(r=>{try{return(0,p.realpathSync)(r)}catch{return g().resolve(r)}},"real"),s=g().relative(n(t.top),n(e)).split(g().sep).join("/"),i=n(t.gitDir)===n(t.commonDir)?"":g().basename(t.gitDir);return`j${ae(Buffer.from(`${i}\0${s}`,"utf8")).slice(0,16)}`}l(bi,"journalKey");function mo(e,t,n){return n===void 0?`${ns}/${e}/${t}`:`${ns}/${e}/${n}/${t}`}l(mo,"snapshotRef");function I1(e,t,n,s){const i=repoInfo(e,s);return i===void 0?void 0:mo(t,n,bi(e,i))}l(I1,"snapshotRefFor");function cg(e,t,n){return`stepchain snapshot: ${e} step ${t}

agent: ${e}
seq: ${t}
step_hash: ${n}
`}l(cg,"message");function dg(e){const t=/^agent: (\S+)$/m.exec(e)?.[1],n=/^seq: ([0-9]+)$/m.exec(e)?.[1],s=/^step_hash: ([0-9a-f]{64})$/m.exec(e)?.[1];if(!(t===void 0||n===void 0||s===void 0))return{agent_id:t,seq:Number(n),step_hash:s}}l(dg,"parseSnapshotMessage");const ug=/tell me who you are|auto-detect email|empty ident|no email was given|no name was given/i;function hg(e,t,n,s,i){const r=["commit-tree","--no-gpg-sign",t,...n===void 0?[]:["-p",n]];try{return Oe(e,r,{env:i,input:s}).trim()}catch(o){if(!(o instanceof it)||!ug.test(o.stderr))throw o;return Oe(e,["-c","user.name=stepchain","-c","user.email=stepchain@localhost",...r],{env:i,input:s}).trim()}}l(hg,"commitTree");function fg(e,t){const{agentId:n,seq:s,stepHash:i,env:r}=e;if(ce(n,"agent id"),!Dc(n))throw new Error(`agent id ${JSON.stringify(n)} cannot be a git ref name component; no snapshot`);const o=t??mi(e.root,r);if(o===void 0)return;gg(o.gitDir),yg();const a=(0,p.mkdtempSync)(g().join(o.gitDir,`${Uc}${rc()}-`));try{const c=g().join(a,"index"),u=pg(o.indexFile,c),d={GIT_INDEX_FILE:c};!u&&o.head!==void 0&&Oe(o.top,["read-tree",o.head],{env:r,extra:d}),Oe(o.top,["add","-A","--",...Qc],{env:r,extra:d}),ve("snapshot:after-index",r);const h=Oe(o.top,["write-tree"],{env:r,extra:d}).trim(),f=hg(o.top,h,o.head,cg(n,s,i),r),y=mo(n,s,bi(e.root,o));return bg(o.commonDir,y),Oe(o.top,["update-ref","-m",`stepchain snapshot ${n} ${s}`,y,f],{env:r}),{ref:y,commit:f,agent_id:n,seq:s,step_hash:i}}finally{(0,p.rmSync)(a,{recursive:!0,force:!0})}}l(fg,"takeSnapshot");function pg(e,t){let n;try{n=(0,p.openSync)(e,"r")}catch{return!1}try{const s=(0,p.fstatSync)(n),i=(0,p.readFileSync)(n),r=(0,p.openSync)(t,"wx",384);try{He(r,i);const o=Math.floor(s.mtimeMs/1e3);(0,p.futimesSync)(r,o,o)}finally{(0,p.closeSync)(r)}return!0}finally{(0,p.closeSync)(n)}}l(pg,"copyIndex");const Uc="stepchain-snap-",mg=/^stepchain-snap-([0-9]+)-([0-9]+|x)-([0-9a-f]{8})-/;function gg(e){let t;try{t=(0,p.readdirSync)(e).filter(i=>i.startsWith(Uc))}catch{return[]}const n=[],s=Dr(et().host);for(const i of t){const r=mg.exec(i),o=g().join(e,i);try{const a=(0,p.lstatSync)(o);if(!a.isDirectory()||!(r===null||r[3]!==s?Date.now()-a.mtimeMs>36e5:!ri(Number(r[1]),r[2]==="x"?void 0:r[2],void 0,a.mtimeMs)))continue;(0,p.rmSync)(o,{recursive:!0,force:!0}),n.push(i)}catch{}}return n}l(gg,"cleanDeadSnapshotDirs");let Gc=!1;function yg(){if(Gc)return;Gc=!0;const e=(0,Ft.tmpdir)();let t;try{t=(0,p.readdirSync)(e).filter(n=>/^stepchain-snap-[A-Za-z0-9]{6}$/.test(n))}catch{return}for(const n of t)try{const s=(0,p.lstatSync)(g().join(e,n));if(!s.isDirectory()||process.getuid!==void 0&&s.uid!==process.getuid())continue;Date.now()-s.mtimeMs>36e5&&(0,p.rmSync)(g().join(e,n),{recursive:!0,force:!0})}catch{}}l(yg,"cleanLegacySnapshotDirs");const Wc=2e3;function bg(e,t){const n=g().join(e,`${t}.lock`),s=performance.now()+2*Wc;for(;;){let i;try{i=Date.now()-(0,p.statSync)(n).mtimeMs}catch{return}if(i>Wc||performance.now()>s){try{(0,p.unlinkSync)(n)}catch{}return}if(oi(100),!(0,p.existsSync)(n))return}}l(bg,"clearStaleRefLock");function zc(e,t,n){ce(t,"agent id");const s=new Map;if(!Dc(t))return s;const i=mi(e,n);if(i===void 0)return s;const r=bi(e,i),o=`${ns}/${t}/${r}/`,a=`${ns}/${t}/`,c=l((d,h)=>{const f=dg(h.message),y=h.ref.slice(d.length);if(!(f===void 0||!/^[0-9]+$/.test(y)||Number(y)!==f.seq))return{ref:h.ref,commit:h.commit,agent_id:t,seq:f.seq,step_hash:f.step_hash}},"found"),u=new Map;for(const d of Hc(e,a,n))if(d.ref.startsWith(o)){const h=c(o,d);h!==void 0&&s.set(h.seq,h)}else{const h=c(a,d);h!==void 0&&u.set(h.seq,h)}for(const[d,h]of u)s.has(d)||s.set(d,h);return s}l(zc,"listSnapshots");function C1(e,t,n,s){return zc(e,t,s).get(n)}l(C1,"readSnapshot");const wg="0".repeat(64),B1=null,_g=["timestamp","event_type","actor","resource_type","resource_id","details","prev_hmac"];function go(e){return Ae(e,{separators:"pretty",allowNonFinite:!0})}l(go,"prettySortedOfRead");function yo(e,t,n){return(0,D.createHmac)("sha256",e).update(Buffer.from(t+go(n),"utf8")).digest("hex")}l(yo,"computeAuditHmac");function qc(e){const t={};for(const[n,s]of Object.entries(e))n!=="hmac"&&Object.defineProperty(t,n,{value:s,enumerable:!0,writable:!0,configurable:!0});return t}l(qc,"withoutHmac");function Ag(e){const t=Math.floor(e/1e3),n=new Date(t).toISOString(),s=String(Math.floor(e)%1e6).padStart(6,"0");return`${n.slice(0,19)}.${s}Z`}l(Ag,"auditTimestamp");function kg(){return Math.floor((performance.timeOrigin+performance.now())*1e3)}l(kg,"nowMicros");function Jc(e,t){if(t!==void 0&&t!=="")return g().resolve(t);const n=e.STEPCHAIN_AUDIT_KEY_PATH||e.BERNSTEIN_AUDIT_KEY_PATH;if(n)return g().resolve(Yc(n,e));const s=e.XDG_STATE_HOME?Yc(e.XDG_STATE_HOME,e):g().join(Kc(e),".local","state");return g().resolve(s,"stepchain","audit.key")}l(Jc,"resolveAuditKeyPath");function Kc(e){return e.HOME||(0,Ft.homedir)()}l(Kc,"homeOf");function Yc(e,t){return e==="~"||e.startsWith("~/")?g().join(Kc(t),e.slice(1)):e}l(Yc,"expandHome");function vg(e){const t=l(i=>i===32||i>=9&&i<=13,"ws");let n=0,s=e.length;for(;n<s&&t(e[n]);)n++;for(;s>n&&t(e[s-1]);)s--;return e.subarray(n,s)}l(vg,"stripAscii");const bo=l(e=>e.code??e.message,"why");function Vc(e,t,n){let s;try{s=(0,p.statSync)(e)}catch(i){throw new w(`${t}: cannot check the audit key's directory ${e}: ${bo(i)}`)}if(s.uid!==n&&s.uid!==0)throw new w(`${t}: the audit key's directory ${e} belongs to uid ${s.uid}, not to you (uid ${n})`);if((s.mode&18)!==0)throw new w(`${t}: the audit key's directory ${e} is writable by ${s.mode&2?"everyone":"its group"} (mode ${(s.mode&4095).toString(8).padStart(4,"0")}): another user could replace the key; keep it in a directory only you can write (chmod 700)`)}l(Vc,"checkKeyDir");function Eg(e){const t=[g().dirname(e)];try{(0,p.lstatSync)(e).isSymbolicLink()&&t.push(g().dirname((0,p.realpathSync)(e)))}catch{}return t}l(Eg,"guardingDirs");function wi(e){let t;try{t=(0,p.openSync)(e,p.constants.O_RDONLY|p.constants.O_NONBLOCK)}catch(n){throw new w(`${e}: cannot read audit key: ${bo(n)}`)}try{const n=(0,p.fstatSync)(t);if(!n.isFile())throw new w(`${e}: audit key is not a regular file`);const s=n.mode&511;if(process.platform!=="win32"&&(s&63)!==0)throw new w(`${e}: audit key has insecure permissions ${s.toString(8).padStart(4,"0")} (group or others can access it); required 0600: chmod 600 ${e}`);const i=process.getuid?.();if(i!==void 0){if(n.uid!==i)throw new w(`${e}: the audit key belongs to uid ${n.uid}, not to you (uid ${i}); a key someone else owns cannot vouch for your log`);for(const o of Eg(e))Vc(o,e,i)}let r;try{r=vg((0,p.readFileSync)(t))}catch(o){throw new w(`${e}: cannot read audit key: ${bo(o)}`)}if(r.length===0)throw new w(`${e}: audit key is empty`);return{path:e,bytes:r}}finally{(0,p.closeSync)(t)}}l(wi,"readKey");function Sg(e){const t=new Int32Array(new SharedArrayBuffer(4));for(let n=0;;n++)try{return wi(e)}catch(s){if(n>=100||!(s instanceof w)||!/is empty$/.test(s.message))throw s;Atomics.wait(t,0,0,10)}}l(Sg,"adoptKey");function Xc(e,t={}){let n=!0;try{(0,p.statSync)(e)}catch(a){if(a.code!=="ENOENT")return wi(e);n=!1}if(n)return wi(e);if(!t.create)throw new w(`${e}: no audit key (give --key FILE or set STEPCHAIN_AUDIT_KEY_PATH)`);const s=g().dirname(e),i=process.getuid?.();i!==void 0&&(0,p.existsSync)(s)&&Vc(s,e,i);let r;try{r=(0,p.mkdirSync)(s,{recursive:!0,mode:448}),r!==void 0&&(0,p.chmodSync)(s,448)}catch(a){throw new w(`${s}: cannot create the audit key directory: ${a.code??a.message}`)}let o;try{o=(0,p.openSync)(e,"wx",384)}catch(a){if(a.code==="EEXIST")return Sg(e);throw new w(`${e}: cannot create audit key: ${a.code??a.message}`)}try{const a=Buffer.from((0,D.randomBytes)(32).toString("hex"),"ascii");(0,p.writeSync)(o,a)}finally{(0,p.closeSync)(o)}return(0,p.chmodSync)(e,384),gt(s),wi(e)}l(Xc,"loadAuditKey");function wo(e){return g().join(e,".sdd","audit")}l(wo,"auditDir");const $g="audit.lock";function xg(e){return`${new Date(Math.floor(e/1e3)).toISOString().slice(0,10)}.jsonl`}l(xg,"dayFileName");function ss(e){let t;try{t=(0,p.readdirSync)(e)}catch(n){const s=n.code;if(s==="ENOENT")return[];throw new w(`${e}: cannot read the audit directory: ${s??n.message}`)}return t.filter(n=>n.endsWith(".jsonl")).sort()}l(ss,"auditFiles");const _o=require("node:zlib");function Zc(e,t,n){let s;if(n!==void 0)s=n;else try{s=(0,p.readFileSync)(g().join(e,t))}catch(a){throw new w(`${g().join(e,t)}: cannot read: ${a.code??a.message}`)}const i=[];let r=0,o=0;for(;r<s.length;){const a=s.indexOf(10,r),c=a<0?s.length:a;o++,c>r&&i.push(Cg(t,o,s.subarray(r,c))),r=c+1}return{lines:i,terminated:s.length===0||s[s.length-1]===10,count:o}}l(Zc,"readAuditLines");const ed=1024*1024*1024;function _i(e){const t=g().join(e,"archive");let n;try{if(!(0,p.statSync)(t).isDirectory())return[];n=(0,p.readdirSync)(t)}catch(i){if(i.code==="ENOENT")return[];throw new w(`${t}: cannot read: ${i.code??i.message}`)}const s=l(i=>{const r=i.split(".",1)[0];return Ig(r)?[0,r,i]:[1,"",i]},"key");return n.filter(i=>i.endsWith(".jsonl.gz")).map(i=>({n:i,k:s(i)})).sort((i,r)=>i.k[0]-r.k[0]||td(i.k[1],r.k[1])||td(i.k[2],r.k[2])).map(({n:i})=>({name:`archive/${i}`,path:g().join(t,i)}))}l(_i,"archivedSegments");const td=l((e,t)=>e<t?-1:e>t?1:0,"cmp");function Ig(e){const t=/^(\d{4})-(\d{1,2})-(\d{1,2})$/.exec(e);if(t===null)return!1;const[n,s,i]=[Number(t[1]),Number(t[2]),Number(t[3])],r=new Date(Date.UTC(n,s-1,i));return r.getUTCFullYear()===n&&r.getUTCMonth()===s-1&&r.getUTCDate()===i}l(Ig,"isDate");function nd(e){let t;try{t=(0,p.readFileSync)(e.path)}catch(n){return`cannot read: ${n.code??n.message}`}try{return(0,_o.gunzipSync)(t,{maxOutputLength:ed})}catch(n){const s=n.code;return s==="ERR_BUFFER_TOO_LARGE"?`decompresses to more than ${ed} bytes`:`not a readable gzip file (${s??n.message})`}}l(nd,"readArchivedSegment");function Cg(e,t,n){let s,i;try{s=le(n),i=ye(s)}catch(o){const a=o instanceof Ie?o.message:o instanceof RangeError?"line too large or too deeply nested":String(o);return{file:e,line:t,bytes:n,entry:void 0,error:`not JSON: ${a}`,canonical:!1}}if(!G(i))return{file:e,line:t,bytes:n,entry:void 0,error:"not a JSON object",canonical:!1};let r;try{r=go(i)===s}catch{r=!1}return{file:e,line:t,bytes:n,entry:i,canonical:r}}l(Cg,"verify_readLine");function sd(e,t){const n=_i(e),s=ss(e),i=[...n.map(d=>d.name),...s],r=new Ys(Tr,(d,h)=>d.file===h.file),o=l(()=>({ok:r.total===0,head_hmac:a,entries:c,files:i,errors:r.list,fault_count:r.total,errors_omitted:r.omitted}),"done");let a=wg,c=0;const u=[];for(const d of n){const h=nd(d);if(typeof h=="string")return r.add({file:d.name,line:0,kind:"unreadable_archive",message:`archived day ${h}`}),o();u.push({file:d.name,bytes:h})}for(const d of s)u.push({file:d});for(const{file:d,bytes:h}of u){const{lines:f,terminated:y,count:m}=Zc(e,d,h);for(const b of f){const _=l((E,B)=>{r.add({file:d,line:b.line,kind:E,message:B})},"fault");if(b.entry===void 0){_("malformed_json",b.error??"malformed");continue}c++;const k=b.entry,S=[..._g,"hmac"].filter(E=>!Object.prototype.hasOwnProperty.call(k,E));S.length>0&&_("missing_field",`entry has no ${S.map(E=>`"${E}"`).join(", ")}`),b.canonical||_("non_canonical","non-canonical line bytes (not json.dumps(entry, sort_keys=True))");const v=typeof k.hmac=="string"?k.hmac:"",A=typeof k.prev_hmac=="string"?k.prev_hmac:"";A!==a&&_("prev_hmac_mismatch",`chain break: prev_hmac ${A}, expected ${a}`);const x=yo(t,a,qc(k));v!==x&&_("hmac_mismatch",`HMAC mismatch: stored ${v}, recomputed ${x} (entry edited, or another key)`),a=v}y||r.add({file:d,line:m,kind:"missing_newline",message:"missing trailing newline (torn or edited last line)"})}return c===0&&r.total===0&&r.add((0,p.existsSync)(e)?{file:"",line:0,kind:"empty_audit_log",message:`the audit log has no entries (${i.length} file${i.length===1?"":"s"}): emptied, or its files vanished`}:{file:"",line:0,kind:"no_audit_log",message:"no audit directory: nothing was ever logged here, or it was removed"}),o()}l(sd,"verifyAuditLog");function id(e,t){return t.file===""?`${e}: ${t.kind}: ${t.message}`:t.last_line!==void 0&&t.count!==void 0?`${g().join(e,t.file)}:${t.line}-${t.last_line}: ${t.kind}: ${t.count.toLocaleString("en-US")} faults on consecutive lines, the first: ${t.message}`:`${g().join(e,t.file)}${t.line>0?`:${t.line}`:""}: ${t.kind}: ${t.message}`}l(id,"describeAuditFault");function Bg(e,t){const n=t.errors.map(s=>id(e,s));return t.errors_omitted>0&&n.push(`${e}: \u2026 and ${t.errors_omitted.toLocaleString("en-US")} more fault${t.errors_omitted===1?"":"s"} not listed`),n}l(Bg,"describeAuditFaults");function rd(e){const t=(e.STEPCHAIN_AUDIT??"").trim().toLowerCase();return!(t==="off"||t==="0"||t==="false"||t==="no")}l(rd,"auditEnabled");const od="audit.checkpoint",ad="audit-log";function Og(e){return[..._i(e).map(t=>t.name),...ss(e)].sort()}l(Og,"segmentNames");function ld(e,t){const n=(0,p.statSync)(e,{bigint:!0});return{dev:String(n.dev),ino:String(n.ino),size:String(t.length),ctime_ns:ae(Buffer.from(t.join(`
`)))}}l(ld,"listingIdentity");function Ao(e,t){const n=[];for(const s of t){let i;try{i=gn(g().join(e,s))}catch{return}if(i===void 0)return;n.push([s,i])}return n}l(Ao,"identities");function Rg(e,t,n){let s;try{s=ld(e,t)}catch{return}const i=eo(g().join(e,od),ad,s,n);if(i===void 0||!Array.isArray(i.files)||typeof i.hmac!="string")return;const r=i.files;if(r.length!==t.length)return;const o=Ao(e,t);if(o===void 0)return;for(let c=0;c<t.length;c++){const u=r[c];if(!Array.isArray(u)||u[0]!==t[c]||typeof u[1]!="object"||u[1]===null||!es(o[c][1],u[1]))return}const a=typeof i.file=="string"?i.file:void 0;if(a!==void 0){const c=o.find(([u])=>u===a);if(c===void 0||typeof i.tail_sha256!="string")return;try{if(yn(g().join(e,a),Number(c[1].size))!==i.tail_sha256)return}catch{return}}return{files:o,tail:a===void 0?{hmac:i.hmac}:{hmac:i.hmac,file:g().join(e,a)},trusted:!0}}l(Rg,"fromCheckpoint");function cd(e,t,n,s){const i=n.map(([a])=>a);let r,o=null;try{if(r=ld(e,i),s.file!==void 0){const a=n.find(([c])=>c===g().basename(s.file))?.[1];if(a===void 0)return;o=yn(s.file,Number(a.size))}}catch{return}Zr(g().join(e,od),ad,e,r,{files:n,hmac:s.hmac,file:s.file===void 0?null:g().basename(s.file),tail_sha256:o},t)}l(cd,"saveCheckpoint");function dd(e,t){const n=(0,p.openSync)(e,"r");try{const s=t>0&&Mt(n,t-1,1)[0]===10,i=s?t-1:t,r=[];let o=i;for(;o>0;){const a=Math.max(0,o-65536),c=Mt(n,a,o-a),u=c.lastIndexOf(10);if(u>=0){r.unshift(c.subarray(u+1)),o=a+u+1;break}r.unshift(c),o=a}return{start:o,bytes:Buffer.concat(r),terminated:s}}finally{(0,p.closeSync)(n)}}l(dd,"lastLine");function ud(e,t){const n=(0,p.openSync)(e,"r");try{let s=1;for(let i=0;i<t;){const r=Mt(n,i,Math.min(1048576,t-i));if(r.length===0)break;for(let o=r.indexOf(10);o>=0;o=r.indexOf(10,o+1))s++;i+=r.length}return s}finally{(0,p.closeSync)(n)}}l(ud,"lineNumberAt");function Tg(e,t){const n=(0,p.openSync)(e,"r");try{for(let s=t;s>0;){const i=Math.max(0,s-65536),r=Mt(n,i,s-i);for(let o=r.length-1;o>=0;o--)if(r[o]!==10)return i+o+1;s=i}return 0}finally{(0,p.closeSync)(n)}}l(Tg,"lastContentEnd");function Ng(e,t,n){const s=Og(e),i=Rg(e,s,t);if(i!==void 0)return i;const r=ss(e),o=Ao(e,s);let a=!1,c;for(let m=r.length-1;m>=0;m--){const b=g().join(e,r[m]);let _=(0,p.statSync)(b).size;if(_===0)continue;const k=dd(b,_);k.terminated||(_=jg(b,_,k,t,n),a=!0);const S=Tg(b,_);if(S===0)continue;const v=dd(b,S),A=hd(v.bytes,t);if(!A.ok)throw new N(`${b}:${ud(b,v.start)}: ${A.why}; refusing to extend the audit log (run \`stepchain audit verify\`)`);c=b;break}const u=sd(e,t),d=u.errors.find(m=>m.kind!=="no_audit_log"&&m.kind!=="empty_audit_log");if(d!==void 0)throw new N(`${id(e,d)}; refusing to extend the audit log (run \`stepchain audit verify\`)`);const h=c===void 0?{hmac:u.head_hmac}:{hmac:u.head_hmac,file:c},f=Ao(e,s)??[],y=!a&&o!==void 0&&o.length===f.length&&o.every(([m,b],_)=>f[_][0]===m&&es(f[_][1],b));return y&&cd(e,t,f,h),{files:f,tail:h,trusted:y}}l(Ng,"recoverTail");function hd(e,t){const n=l(a=>({ok:!1,why:a}),"no");let s,i;try{i=le(e),s=ye(i)}catch(a){return n(`last entry is not JSON (${a.message})`)}if(!G(s))return n("last entry is not a JSON object");if(go(s)!==i)return n("last entry has non-canonical line bytes");const r=s.hmac,o=s.prev_hmac;return typeof r!="string"||typeof o!="string"?n("last entry has no hmac or prev_hmac"):yo(t,o,qc(s))!==r?n("last entry HMAC does not verify under this key"):{ok:!0,hmac:r}}l(hd,"checkTailEntry");function jg(e,t,n,s,i){const r=hd(n.bytes,s);if(r.ok)return Jr(e,t,i),t+1;if(Nr(n.bytes))throw new N(`${e}:${ud(e,n.start)}: ${r.why} (it parses as JSON, so it is no torn write); refusing to extend the audit log (run \`stepchain audit verify\`)`);return qr(e,n.start,i,384),n.start}l(jg,"repairTorn");function Ai(e,t){if(typeof t!="string")throw new w(`audit: ${e} must be a string`);return t}l(Ai,"checkText");function Fg(e,t,n,s,i={}){if(Ai("event_type",n),n==="")throw new w("audit: event_type is empty");const r=s.details??{};if(!G(r))throw new w("audit: details must be a JSON object");const o=i.durable??!0;Qe(e);const a=li(g().join(e,$g),i.lockTimeoutMs===void 0?{}:{timeoutMs:i.lockTimeoutMs});try{const c=Ng(e,t,o),u=c.tail,d=i.nowMicros??kg();let h=g().join(e,xg(d));u.file!==void 0&&g().basename(u.file)>g().basename(h)&&(h=u.file);const f={timestamp:Ag(d),event_type:n,actor:Ai("actor",s.actor),resource_type:Ai("resource_type",s.resource_type),resource_id:Ai("resource_id",s.resource_id),details:r,prev_hmac:u.hmac};let y,m;try{y=yo(t,u.hmac,f),m=Ae({...f,hmac:y},{separators:"pretty"})}catch(A){throw A instanceof mt?new w(`audit: details: ${A.message}`):A}a.refresh(),a.assertHeld();const b=g().basename(h),_=c.trusted?c.files.find(([A])=>A===b)?.[1]??"new":void 0,{after:k,untouched:S}=zr(h,Buffer.from(`${m}
`,"utf8"),o,_);ve("audit:after-write");const v=c.files.filter(([A])=>A!==b);return v.push([b,di(k)]),v.sort(([A],[x])=>A<x?-1:A>x?1:0),S&&cd(e,t,v,{hmac:y,file:h}),{...f,hmac:y}}finally{a()}}l(Fg,"appendAuditEvent");function ki(e,t,n,s){if(rd(s.env))try{const i=Xc(Jc(s.env,s.keyPath),{create:!0});Fg(s.dir??wo(e),i.bytes,t,n,s.nowMicros===void 0?{}:{nowMicros:s.nowMicros});return}catch(i){const r=i instanceof Ze?i.message:`${i?.message??String(i)}`;return`the audit chain was NOT extended (event ${t} not written): ${r}`}}l(ki,"auditEvent");function fd(e){return e.STEPCHAIN_ACTOR||e.USER||e.LOGNAME||"stepchain"}l(fd,"operatorActor");function pd(e,t,n){Tc(t);const s=ao.open(e,n),i=s.append(t),r=[],o={row:i,journal:s,warnings:r,notes:[]};if(n.snapshot!==!1)try{const u=g().basename(g().resolve(e)),d=fg({root:n.root,agentId:u,seq:i.seq,stepHash:i.step_hash,env:n.env??process.env});d!==void 0?o.snapshot=d:i.seq===0&&o.notes.push(`${n.root} is not in a git work tree: steps are recorded without worktree snapshots (a fork restores no files)`)}catch(u){r.push(`step ${i.seq} recorded, but its worktree snapshot failed: ${u.message}`)}const a=g().basename(g().resolve(e)),c=ki(n.root,"replay.step",{actor:a,resource_type:"journal",resource_id:a,details:{agent:a,seq:i.seq,step_hash:i.step_hash}},n.auditKeyPath===void 0?{env:n.env??process.env}:{env:n.env??process.env,keyPath:n.auditKeyPath});return c!==void 0&&r.push(`step ${i.seq} recorded, but ${c}`),o}l(pd,"recordStep");function md(e,t){try{return(0,p.lstatSync)(g().join(e,t)).isDirectory()}catch{return!1}}l(md,"isDir");function gd(e,t){try{return(0,p.lstatSync)(g().join(e,t)),!0}catch{return!1}}l(gd,"exists");function ko(e){const t=g().resolve(e);let n=t;for(;;){if(md(n,".sdd"))return{root:n,found:"sdd"};if(gd(n,".git"))return{root:n,found:"git"};const s=g().dirname(n);if(s===n)return{root:t,found:"start"};n=s}}l(ko,"findProjectRoot");function Mg(e){if(e.explicit===void 0)return ko(e.cwd);const t=g().resolve(e.cwd,e.explicit);if(e.create&&!md(t,".sdd")&&!gd(t,".git")){const n=ko(g().dirname(t));if(n.found==="sdd"&&n.root!==t)throw new w(`${t} is inside the project ${n.root} (it holds .sdd/): refusing to start a second project below it; use --root ${n.root} (or leave --root out), or create ${g().join(t,".sdd")} first to make it a project of its own`)}return{root:t,found:"explicit"}}l(Mg,"resolveProjectRoot");const Z={root:{kind:"value",value:"DIR",description:"The project root (the directory holding .sdd/). Default: found like git: the nearest directory upwards holding .sdd/, else the top of the git work tree, else the current directory."}},J={json:{kind:"flag",description:'Print one JSON document on stdout (snake_case keys, full hashes); an error is {"ok": false, "error": {...}}.'}},kn={kind:"list",value:"FILE",description:`A trusted Ed25519 public key (PEM SPKI or 32 raw bytes): a signed receipt's signature must verify under one of them. Without one, a signed receipt is shown with "signature NOT checked" and never verifies.`},Lg={force:{kind:"flag",description:"Replace the output file if it exists (without it an existing file is refused)."}};function ne(e,t,n={}){const s=e.values.get("root");if(s!==void 0){const i=Ce(g().resolve(t.cwd,s));if(i!=="dir")throw new w(`--root ${s}: ${i==="file"?"not a directory":"no such directory"}`)}return Mg({cwd:t.cwd,...s===void 0?{}:{explicit:s},...n.create?{create:!0}:{}}).root}l(ne,"rootOf");function Pg(e,t,n,s){if(Ce(e)==="dir")throw new w(`${s}: ${t} is a directory`);if(!n.flags.has("force")&&(Ce(e)!==void 0||Dg(e)))throw new w(`${s}: ${t} exists; refusing to replace it (give --force to replace it)`)}l(Pg,"refuseOverwrite");function Dg(e){try{return(0,p.lstatSync)(e).isSymbolicLink()}catch{return!1}}l(Dg,"isSymlink");function is(e,t,n="file"){if(e==="-")return t.readStdin();try{return(0,p.readFileSync)(g().resolve(t.cwd,e))}catch(s){const i=s.code,r=i==="ENOENT"?"no such file":i==="EISDIR"?"is a directory":i==="EACCES"?"permission denied":i??"unreadable";throw new w(`${e}: cannot read ${n}: ${r}`)}}l(is,"readInputFile");function yd(e,t){const n=e.values.get(t);if(n!==void 0){if(!Pe(n))throw new w(`--${t}: expected 64 lowercase hex digits, got ${JSON.stringify(n)}`);return n}}l(yd,"hashOption");function bt(e,t){if(!/^[0-9]+$/.test(e)||!Number.isSafeInteger(Number(e)))throw new w(`${t}: expected a non-negative integer, got ${JSON.stringify(e)}`);return Number(e)}l(bt,"intArg");function bd(e,t){if(t!==void 0)try{return ye(t)}catch(n){throw n instanceof Ie?new w(`--${e}: not JSON: ${n.message}`):n}}l(bd,"jsonOption");const Hg={name:["append"],usage:"<agent> [--root DIR] [--input FILE|-] [--input-hash HEX] [--model M] [--prompt TEXT | --prompt-file FILE] [--tool-call JSON] [--tool-result JSON] [--blob FILE]... [--no-snapshot] [--json]",summary:"Append one step to an agent's journal (recovering and verifying the chain first) and print the row.",description:"<agent> is an agent id (its journal is <root>/.sdd/runtime/journal/<agent>/000000.jsonl, created on the first append) or a journal directory. The chain is recovered and verified first: a journal that does not verify is never extended. In a git work tree the files as they are now are recorded as the snapshot of this step (a fork from this step restores them).",options:{...Z,...J,input:{kind:"value",value:"FILE|-",description:"The input blob (its SHA-256 is the input_hash; stored in the CAS). `-` reads stdin."},"input-hash":{kind:"value",value:"HEX",description:"The input_hash as given (64 lowercase hex digits) when the input itself is not at hand."},model:{kind:"value",value:"M",description:"The model that ran the step."},prompt:{kind:"value",value:"TEXT",description:"The prompt text."},"prompt-file":{kind:"value",value:"FILE",description:"Read the prompt from a file, byte for byte (UTF-8). `-` reads stdin."},"tool-call":{kind:"value",value:"JSON",description:"The tool call, as JSON (numbers kept exactly)."},"tool-result":{kind:"value",value:"JSON",description:"The tool result, as JSON."},blob:{kind:"list",value:"FILE",description:"An extra blob to store in the CAS and list in blob_refs."},"no-snapshot":{kind:"flag",description:"Do not record a git snapshot of the work tree for this step."}},examples:[{run:`stepchain append agent-1 --model claude-3-7-sonnet-20250219 --prompt "Fix the bug" --tool-call '{"name":"edit_file"}'`,what:"record one step of agent-1"},{run:'git diff | stepchain append agent-1 --input - --prompt "review"',what:"the input blob from stdin"}],exitCodes:{0:"the step was appended",1:"the journal does not verify (nothing appended), or it is locked",2:"usage or input error (bad id, unreadable file, bad JSON)"},run(e,t){const[n]=e.positionals;if(n===void 0)throw new w("append: missing <agent>");if(e.positionals.length>1)throw new w(`append: unexpected argument ${JSON.stringify(e.positionals[1])}`);const s=e.values.get("root");s!==void 0&&hm(g().resolve(t.cwd,s),n);const i=ne(e,t,{create:!0});if(e.values.has("prompt")&&e.values.has("prompt-file"))throw new w("append: give --prompt or --prompt-file, not both");if(e.values.has("input")&&e.values.has("input-hash"))throw new w("append: give --input or --input-hash, not both");const r={},o=bd("tool-call",e.values.get("tool-call")),a=bd("tool-result",e.values.get("tool-result"));o!==void 0&&(r.tool_call=o),a!==void 0&&(r.tool_result=a);const c=e.values.get("model");c!==void 0&&(r.model=c);const u=e.values.get("prompt-file");if(u!==void 0){const v=is(u,t,"prompt file");try{r.prompt=le(v)}catch{throw new w(`${u}: prompt file is not valid UTF-8`)}}else e.values.has("prompt")&&(r.prompt=e.values.get("prompt"));const d=e.values.get("input");d!==void 0&&(r.input=is(d,t,"input"));const h=e.values.get("input-hash");h!==void 0&&(r.inputHash=h);const f=e.lists.get("blob")??[];f.length>0&&(r.blobs=f.map(v=>is(v,t,"blob")));const{dir:y}=wn(n,i,!1);if(n.endsWith(".jsonl"))throw new w(`append: give an agent id or a journal directory, not a file (${n})`);const{row:m,journal:b,warnings:_,notes:k,snapshot:S}=pd(y,r,{root:i,env:t.env,snapshot:!e.flags.has("no-snapshot"),...st(y)===void 0?{cas:new nt(tt(i))}:{}});for(const v of _)t.err(`stepchain: warning: ${v}`);for(const v of k)t.err(`stepchain: note: ${v}`);return e.flags.has("json")?t.out(Ml(m)):(t.out(`appended step ${m.seq} to ${b.file}`),t.out(`  step_hash  ${m.step_hash}`),t.out(`  prev_hash  ${m.prev_hash}`),t.out(`  input_hash ${m.input_hash}`),m.blob_refs.length>0&&t.out(`  blob_refs  ${m.blob_refs.join(" ")}`),S!==void 0&&t.out(`  snapshot   ${S.ref} ${S.commit}`)),0}},Qg=/^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:?\d{2})?)?$/;function wd(e,t=!1){const n=Qg.exec(e.trim());if(n===null)return;const[,s,i,r,o,a,c,u,d]=n,h=Date.UTC(Number(s),Number(i)-1,Number(r),Number(o??0),Number(a??0),Number(c??0));if(Number.isNaN(h))return;const f=new Date(h);if(f.getUTCDate()!==Number(r)||f.getUTCMonth()!==Number(i)-1)return;let y=h*1e3+Number((u??"").padEnd(6,"0").slice(0,6)||0);if(d!==void 0&&d!=="Z"){const m=d[0]==="-"?-1:1,b=d.slice(1).replace(":","");y-=m*(Number(b.slice(0,2))*60+Number(b.slice(2)))*6e7}return t&&o===void 0&&(y+=864e8-1),y}l(wd,"isoMicros");function _d(e,t,n){if(t===void 0)return;const s=wd(t,n);if(s===void 0)throw new w(`--${e}: expected an ISO 8601 date or time (e.g. 2026-12-02 or 2026-12-02T09:30:00Z), got ${JSON.stringify(t)}`);return s}l(_d,"bound");function Ug(e,t={}){const n=_d("since",t.since,!1),s=_d("until",t.until,!0),i=[],r=[];for(const o of _i(e)){const a=nd(o);typeof a!="string"&&r.push({file:o.name,bytes:a})}for(const o of ss(e))r.push({file:o});for(const{file:o,bytes:a}of r)for(const c of Zc(e,o,a).lines){const u=c.entry;if(u!==void 0&&!(t.event_type!==void 0&&u.event_type!==t.event_type)&&!(t.actor!==void 0&&u.actor!==t.actor)){if(n!==void 0||s!==void 0){const d=typeof u.timestamp=="string"?wd(u.timestamp):void 0;if(d===void 0||n!==void 0&&d<n||s!==void 0&&d>s)continue}i.push({file:o,line:c.line,entry:u})}}return i}l(Ug,"queryAudit");const Gg=161,Wg=1114109,zg=[161,161,164,164,167,168,170,170,173,174,176,180,182,186,188,191,198,198,208,208,215,216,222,225,230,230,232,234,236,237,240,240,242,243,247,250,252,252,254,254,257,257,273,273,275,275,283,283,294,295,299,299,305,307,312,312,319,322,324,324,328,331,333,333,338,339,358,359,363,363,462,462,464,464,466,466,468,468,470,470,472,472,474,474,476,476,593,593,609,609,708,708,711,711,713,715,717,717,720,720,728,731,733,733,735,735,768,879,913,929,931,937,945,961,963,969,1025,1025,1040,1103,1105,1105,8208,8208,8211,8214,8216,8217,8220,8221,8224,8226,8228,8231,8240,8240,8242,8243,8245,8245,8251,8251,8254,8254,8308,8308,8319,8319,8321,8324,8364,8364,8451,8451,8453,8453,8457,8457,8467,8467,8470,8470,8481,8482,8486,8486,8491,8491,8531,8532,8539,8542,8544,8555,8560,8569,8585,8585,8592,8601,8632,8633,8658,8658,8660,8660,8679,8679,8704,8704,8706,8707,8711,8712,8715,8715,8719,8719,8721,8721,8725,8725,8730,8730,8733,8736,8739,8739,8741,8741,8743,8748,8750,8750,8756,8759,8764,8765,8776,8776,8780,8780,8786,8786,8800,8801,8804,8807,8810,8811,8814,8815,8834,8835,8838,8839,8853,8853,8857,8857,8869,8869,8895,8895,8978,8978,9312,9449,9451,9547,9552,9587,9600,9615,9618,9621,9632,9633,9635,9641,9650,9651,9654,9655,9660,9661,9664,9665,9670,9672,9675,9675,9678,9681,9698,9701,9711,9711,9733,9734,9737,9737,9742,9743,9756,9756,9758,9758,9792,9792,9794,9794,9824,9825,9827,9829,9831,9834,9836,9837,9839,9839,9886,9887,9919,9919,9926,9933,9935,9939,9941,9953,9955,9955,9960,9961,9963,9969,9972,9972,9974,9977,9979,9980,9982,9983,10045,10045,10102,10111,11094,11097,12872,12879,57344,63743,65024,65039,65533,65533,127232,127242,127248,127277,127280,127337,127344,127373,127375,127376,127387,127404,917760,917999,983040,1048573,1048576,1114109],qg=12288,Jg=65510,Kg=[12288,12288,65281,65376,65504,65510],O1=8361,R1=65518,T1=null,N1=32,j1=10630,F1=null,Yg=4352,Vg=262141,Ad=[4352,4447,8986,8987,9001,9002,9193,9196,9200,9200,9203,9203,9725,9726,9748,9749,9776,9783,9800,9811,9855,9855,9866,9871,9875,9875,9889,9889,9898,9899,9917,9918,9924,9925,9934,9934,9940,9940,9962,9962,9970,9971,9973,9973,9978,9978,9981,9981,9989,9989,9994,9995,10024,10024,10060,10060,10062,10062,10067,10069,10071,10071,10133,10135,10160,10160,10175,10175,11035,11036,11088,11088,11093,11093,11904,11929,11931,12019,12032,12245,12272,12287,12289,12350,12353,12438,12441,12543,12549,12591,12593,12686,12688,12773,12783,12830,12832,12871,12880,42124,42128,42182,43360,43388,44032,55203,63744,64255,65040,65049,65072,65106,65108,65126,65128,65131,94176,94180,94192,94198,94208,101594,101631,101664,101760,101874,101888,102801,102816,102866,110576,110579,110581,110587,110589,110590,110592,110888,110898,110898,110928,110930,110933,110933,110948,110952,110960,111355,119552,119638,119648,119670,126980,126980,127183,127183,127374,127374,127377,127386,127406,127406,127488,127490,127504,127547,127552,127560,127568,127569,127584,127589,127744,127776,127789,127797,127799,127868,127870,127891,127904,127946,127951,127955,127968,127984,127988,127988,127992,128062,128064,128064,128066,128252,128255,128317,128331,128334,128336,128359,128378,128378,128405,128406,128420,128420,128507,128591,128640,128709,128716,128716,128720,128722,128725,128729,128732,128735,128747,128748,128756,128764,128986,128986,128992,129003,129008,129008,129292,129338,129340,129349,129351,129535,129648,129660,129664,129734,129736,129736,129740,129757,129759,129771,129775,129786,131072,196605,196608,262141],vo=l((e,t)=>{let n=0,s=Math.floor(e.length/2)-1;for(;n<=s;){const i=Math.floor((n+s)/2),r=i*2;if(t<e[r])s=i-1;else if(t>e[r+1])n=i+1;else return!0}return!1},"utilities_isInRange"),kd=19968,[Xg,Zg]=e0(Ad);function e0(e){let t=e[0],n=e[1];for(let s=0;s<e.length;s+=2){const i=e[s],r=e[s+1];if(kd>=i&&kd<=r)return[i,r];r-i>n-t&&(t=i,n=r)}return[t,n]}l(e0,"findWideFastPathRange");const vd=l(e=>e<Gg||e>Wg?!1:vo(zg,e),"isAmbiguous"),Ed=l(e=>e<qg||e>Jg?!1:vo(Kg,e),"isFullwidth"),t0=l(e=>e<halfwidthMinimalCodePoint||e>halfwidthMaximumCodePoint?!1:isInRange(halfwidthRanges,e),"isHalfwidth"),n0=l(e=>e<narrowMinimalCodePoint||e>narrowMaximumCodePoint?!1:isInRange(narrowRanges,e),"isNarrow"),Sd=l(e=>e>=Xg&&e<=Zg?!0:e<Yg||e>Vg?!1:vo(Ad,e),"isWide");function M1(e){return vd(e)?"ambiguous":Ed(e)?"fullwidth":t0(e)?"halfwidth":n0(e)?"narrow":Sd(e)?"wide":"neutral"}l(M1,"lookup_getCategory");function $d(e){if(!Number.isSafeInteger(e))throw new TypeError(`Expected a code point, got \`${typeof e}\`.`)}l($d,"validate");function L1(e){return $d(e),getCategory(e)}l(L1,"eastAsianWidthType");function s0(e,{ambiguousAsWide:t=!1}={}){return $d(e),Ed(e)||Sd(e)||t&&vd(e)?2:1}l(s0,"eastAsianWidth");const i0=new RegExp("^(?:\\p{Mn}|\\p{Me}|\\p{Cf})$","u");function Eo(e){return e<127?1:e>=4448&&e<=4607||i0.test(String.fromCodePoint(e))?0:s0(e)}l(Eo,"charWidth");function K(e){let t=0;for(const n of e)t+=Eo(n.codePointAt(0));return t}l(K,"text_displayWidth");function xd(e,t){let n=0,s="";for(const i of e){const r=Eo(i.codePointAt(0));if(n+r>t)break;n+=r,s+=i}return s}l(xd,"sliceColumns");function Pt(e,t){return t<=0?"":K(e)<=t?e:`${xd(e,t-1)}\u2026`}l(Pt,"truncate");function me(e,t){const n=Pt(e,t);return n+" ".repeat(Math.max(0,t-K(n)))}l(me,"fit");function Dt(e,t){if(t<=0)return[e];const n=[];let s=0,i=0,r=!1,o=-1,a=0,c=0;for(;c<e.length;){const u=e.codePointAt(c),d=u>65535?2:1,h=Eo(u);if(i+h>t&&c>s){if(u===32&&r){n.push(e.slice(s,c)),s=c+1,i=0,r=!1,o=-1,c+=1;continue}o>s?(n.push(e.slice(s,o-1)),s=o,i-=a,r=c>o):(n.push(e.slice(s,c)),s=c,i=0,r=!1),o=-1}i+=h,c+=d,u===32?r&&(o=c,a=i):r=!0}return n.push(e.slice(s)),n}l(Dt,"wrap");function vn(e){return typeof e=="string"?JSON.stringify(e):e===null||typeof e!="object"||e instanceof De?Ae(e,{allowNonFinite:!0,sortKeys:!1}):Array.isArray(e)?`[${e.map(vn).join(",")}]`:`{${(e instanceof Map?[...e]:Object.entries(e)).map(([n,s])=>`${JSON.stringify(n)}:${vn(s)}`).join(",")}}`}l(vn,"compactJson");function So(e,t=""){const n=`${t}  `,s=G(e)||e instanceof Map;if(Array.isArray(e)){if(e.length===0)return[`${t}[]`];const i=[`${t}[`];return e.forEach((r,o)=>{const a=So(r,n);o<e.length-1&&(a[a.length-1]+=",");for(const c of a)i.push(c)}),i.push(`${t}]`),i}if(s){const i=e instanceof Map?[...e]:Object.entries(e);if(i.length===0)return[`${t}{}`];const r=[`${t}{`];return i.forEach(([o,a],c)=>{const u=So(a,n);u[0]=`${n}${JSON.stringify(o)}: ${u[0].trimStart()}`,c<i.length-1&&(u[u.length-1]+=",");for(const d of u)r.push(d)}),r.push(`${t}}`),r}return typeof e=="string"&&e.includes(`
`)?[`${t}|`,...e.split(`
`).map(i=>`${n}${i}`)]:[`${t}${vn(e)}`]}l(So,"prettyJson");function vi(e){return typeof e=="string"?e.includes(`
`):Array.isArray(e)?e.some(vi):e instanceof Map?[...e.values()].some(vi):G(e)?Object.values(e).some(vi):!1}l(vi,"hasMultilineString");function Ei(e,t){if(typeof e=="string")return e.split(`
`).map(s=>R(s));const n=R(vn(e));return K(n)<=t&&!vi(e)?[n]:So(e).map(s=>R(s))}l(Ei,"valueLines");function rt(e){return R(typeof e=="string"?e:vn(e))}l(rt,"preview");function Id(e){const t=new Date(e*1e3);return Number.isNaN(t.getTime())?String(e):t.toISOString()}l(Id,"isoTime");function Cd(e,t=12){return e.slice(0,t)}l(Cd,"shortHash");const r0={name:["audit","query"],usage:"[--event-type T] [--actor A] [--since ISO] [--until ISO] [--dir DIR] [--root DIR] [--json]",summary:"List audit events by type, actor and time range (inclusive bounds; a bare date covers the whole UTC day).",description:"Lists without verifying: run `stepchain audit verify` to check the chain.",options:{...Z,...J,dir:{kind:"value",value:"DIR",description:"The audit directory (default <root>/.sdd/audit)."},"event-type":{kind:"value",value:"T",description:"Only this event type, e.g. replay.fork."},actor:{kind:"value",value:"A",description:"Only events of this actor."},since:{kind:"value",value:"ISO",description:"From this time on (inclusive; a bare date is its whole UTC day)."},until:{kind:"value",value:"ISO",description:"Up to this time (inclusive; a bare date is its whole UTC day)."}},examples:[{run:"stepchain audit query --event-type replay.fork --since 2026-12-01",what:"forks since a day"}],exitCodes:{0:"listed (possibly none)",2:"usage or input error (a bad time)"},run(e,t){q(e,[],"audit query");const n=e.values.get("dir"),s=n===void 0?wo(ne(e,t)):g().resolve(t.cwd,n),i={},r=l((a,c)=>{const u=e.values.get(c);u!==void 0&&(i[a]=u)},"set");r("event_type","event-type"),r("actor","actor"),r("since","since"),r("until","until");const o=Ug(s,i);if(e.flags.has("json"))t.json({dir:s,count:o.length,events:o.map(a=>a.entry)});else{const a=o.map(d=>{const h=d.entry,f=l(y=>R(String(y)),"f");return[f(h.timestamp),f(h.event_type),f(h.actor),`${f(h.resource_type)}/${f(h.resource_id)}`,Ae(h.details,{separators:"compact",allowNonFinite:!0})]}),c=[0,1,2,3].map(d=>a.reduce((h,f)=>Math.max(h,K(f[d])),0)),u=l((d,h)=>d+" ".repeat(Math.max(0,h-K(d))),"pad");a.length>0&&t.out(["timestamp","event_type","actor","resource","details"].map((d,h)=>h<4?u(d,Math.max(c[h],d.length)):d).join("  ").trimEnd());for(const d of a)t.out(d.map((h,f)=>f<4?u(h,Math.max(c[f],["timestamp","event_type","actor","resource"][f].length)):h).join("  "));t.out(`${o.length} event${o.length===1?"":"s"}`)}return 0}},o0={name:["audit","verify"],usage:"[--dir DIR] [--key FILE] [--root DIR] [--json]",summary:"Verify the HMAC-chained audit log across its daily files: every fault with file and line. Exit 0 holds, 1 not.",description:'Every line must be byte-identical to its canonical form, every prev_hmac the previous hmac, every hmac recompute under the key. A missing or empty audit directory is a fault, never "OK, 0 entries".',options:{...Z,...J,dir:{kind:"value",value:"DIR",description:"The audit directory (default <root>/.sdd/audit)."},key:{kind:"value",value:"FILE",description:"The HMAC key file (default STEPCHAIN_AUDIT_KEY_PATH, else the XDG state directory)."}},examples:[{run:"stepchain audit verify",what:"verify this project's audit chain"}],exitCodes:{0:"the chain holds",1:"a fault (each printed with file and line), or no entries at all",2:"usage or input error (an unreadable key)"},run(e,t){q(e,[],"audit verify");const n=e.values.get("dir"),s=n===void 0?wo(ne(e,t)):g().resolve(t.cwd,n),i=e.values.get("key"),r=ss(s).length===0&&_i(s).length===0&&i===void 0?new Uint8Array(0):Xc(Jc(t.env,i===void 0?void 0:g().resolve(t.cwd,i))).bytes,o=sd(s,r);if(e.flags.has("json")?t.json({ok:o.ok,dir:s,head_hmac:o.head_hmac,head_hash:o.head_hmac,entries:o.entries,steps:o.entries,files:o.files,errors:o.errors,fault_count:o.fault_count,errors_omitted:o.errors_omitted}):o.ok?t.out(`OK ${s}: ${o.entries} entr${o.entries===1?"y":"ies"} in ${o.files.length} file${o.files.length===1?"":"s"}, head ${o.head_hmac}`):t.out(`FAIL ${s}: ${o.fault_count} fault${o.fault_count===1?"":"s"} in ${o.entries} entries`),!o.ok)for(const a of Bg(s,o))t.err(a);return o.ok?0:1}};function $o(e,t){let n=0,s=e.indexOf(10);for(;s>=0&&s<t;)n++,s=e.indexOf(10,s+1);return n}l($o,"append_only_countLines");function a0(e,t,n){const s=e.indexOf(10,n),i=e.subarray(n,s<0?e.length:s);try{const r=ye(le(i));if(G(r)){const o=r.seq??r.index;if(pt(o)&&typeof o=="number")return o}}catch{}return t}l(a0,"seqOfLine");function l0(e,t){return t===0?0:e.lastIndexOf(10,t-1)+1}l(l0,"lineStart");function Bd(e,t,n="seq"){const s=e.lastIndexOf(10)+1,i=$o(e,s);if(t===void 0)return{ok:!1,kind:"deleted",baseRows:i,headRows:0,appended:0,firstChangedSeq:i>0?0:null,line:null,message:`journal deleted (the base has ${i} row${i===1?"":"s"})`};const r=$o(t,t.length),o=Math.min(s,t.length);let a=-1;if(e.compare(t,0,o,0,o)!==0){let m=0,b=o;for(;b-m>1;){const _=m+b>>>1;e.compare(t,m,_,m,_)===0?m=_:b=_}a=m}else t.length<s&&(a=t.length);if(a<0){const m=r-i;return{ok:!0,kind:m>0||t.length>s?"appended":"unchanged",baseRows:i,headRows:r,appended:m,firstChangedSeq:null,line:null,message:m>0?`${m} row${m===1?"":"s"} appended`:"unchanged"}}const c=l0(e,a),u=$o(e,c),d=a0(e,u,c),h=a>=t.length&&t.length<s,f=r+(t.length>0&&t[t.length-1]!==10?1:0),y=u<f?u+1:f>0?f:null;return{ok:!1,kind:h?"truncated":"rewritten",baseRows:i,headRows:r,appended:0,firstChangedSeq:d,line:y,message:h?`history truncated at ${n} ${d}: the base has ${i} rows, the head ${r}`:`history rewritten from ${n} ${d} (line ${u+1}): the base's rows are not a prefix of the head`}}l(Bd,"checkAppendOnly");const xo=".pending.json";function Od(e,t){return g().join(e,`${t}${xo}`)}l(Od,"pendingFile");function c0(e,t){const n=et(),s={...t,pid:n.pid,host:n.host,start:n.start??null,boot:n.boot??null};Qe(e);const i=Od(e,t.fork_session_id);return Ur(i,Buffer.from(`${JSON.stringify(s)}
`,"utf8"),{durable:!0,exclusive:!0}),i}l(c0,"writeIntent");function Io(e){try{(0,p.unlinkSync)(e),gt(g().dirname(e))}catch(t){if(t.code!=="ENOENT")throw t}}l(Io,"removeIntent");function d0(e){let t;try{t=JSON.parse(e)}catch{return}if(typeof t!="object"||t===null)return;const n=t,s=l(i=>typeof n[i]=="string","str");if(["fork_session_id","parent_session_id","worktree","branch","base","created_at","host"].every(s)&&!(typeof n.pid!="number"||typeof n.branch_existed!="boolean")&&!(n.from_step!==null&&!(typeof n.from_step=="number"&&Number.isSafeInteger(n.from_step)))&&be(n.fork_session_id))return t}l(d0,"parseIntent");function Rd(e){let t;try{t=(0,p.readdirSync)(e)}catch{return[]}const n=[];for(const s of t.filter(i=>i.endsWith(xo)).sort()){const i=g().join(e,s);let r;try{r=(0,p.readFileSync)(i,"utf8")}catch{continue}const o=d0(r);o!==void 0&&`${o.fork_session_id}${xo}`===s&&n.push({file:i,intent:o})}return n}l(Rd,"readIntents");function Td(e){if(e.host===et().host)return ri(e.pid,e.start??void 0,e.boot??void 0)?e.pid:void 0}l(Td,"liveCreator");const u0=/^fork-(?:[a-z0-9-]+-)?[0-9]{8}-[0-9]{6}-[0-9a-f]{6}$/;function h0(e){return e.normalize("NFKD").replace(/[\u0300-\u036f]/g,"").toLowerCase().replace(/[^a-z0-9]+/g,"-").replace(/^-+|-+$/g,"").slice(0,40).replace(/-+$/,"")}l(h0,"labelSlug");function f0(e,t=new Date){const n=l((r,o=2)=>String(r).padStart(o,"0"),"p"),s=`${n(t.getUTCFullYear(),4)}${n(t.getUTCMonth()+1)}${n(t.getUTCDate())}-${n(t.getUTCHours())}${n(t.getUTCMinutes())}${n(t.getUTCSeconds())}`,i=e===void 0?"":h0(e);return`fork-${i?`${i}-`:""}${s}-${(0,D.randomBytes)(3).toString("hex")}`}l(f0,"newForkId");function Ge(e){return g().join(e,".sdd","worktrees")}l(Ge,"worktreesDir");function Nd(e,t){return g().join(Ge(e),ce(t,"fork id"))}l(Nd,"forkWorktreePath");function p0(e,t){return`fork/${e??"session"}/${t}`}l(p0,"forkBranchName");function m0(e){return g().join(Zn(e),"sessions")}l(m0,"sessionsDir");function Si(e,t){return g().join(m0(e),`${ce(t,"session id")}.json`)}l(Si,"sessionFile");function Co(e){let t;try{t=(0,p.readFileSync)(e)}catch(s){if(s.code==="ENOENT")return;throw new w(`${e}: cannot read session file: ${s.code??s.message}`)}let n;try{n=Yn(t)}catch(s){throw s instanceof Ie?new N(`${e}: session file is not JSON: ${s.message}`):s}if(!G(n))throw new N(`${e}: session file is not a JSON object`);return n}l(Co,"readSessionFile");function jd(e,t){(0,p.mkdirSync)(g().dirname(e),{recursive:!0});const n=(0,p.openSync)(e,"wx",420);try{He(n,typeof t=="string"?Buffer.from(t,"utf8"):t),(0,p.fsyncSync)(n)}finally{(0,p.closeSync)(n)}gt(g().dirname(e))}l(jd,"writeNewFile");const g0=Buffer.from(`
`);function y0(e){const t=[];for(let n=g().resolve(e);!(0,p.existsSync)(n)&&(t.unshift(n),g().dirname(n)!==n);n=g().dirname(n));return t}l(y0,"missingDirs");function Fd(e,t,n){const s=e.get(t);return s!==void 0&&s.step_hash===n?s:void 0}l(Fd,"matchingSnapshot");async function Bo(e){const t=e.env??process.env,n=g().resolve(e.root),s=ce(e.sessionId,"session id"),i=e.forkId===void 0?f0(e.label,e.now):ce(e.forkId,"fork id"),r=e.fromStep;if(r!==void 0&&(!Number.isSafeInteger(r)||r<0))throw new w(`--from-step: expected a non-negative integer, got ${r}`);const o=e.label??null;if(o!==null&&/[\x00-\x1f\x7f]/.test(o))throw new w("--label: control characters are not allowed");if(!(0,p.existsSync)(n))throw new w(`${n}: no such directory`);const a=gi(n,t),c=Lt(n,s),u=Si(n,s),d=(0,p.existsSync)(c),h=Co(u);if(!d&&h===void 0)throw new w(`no session ${JSON.stringify(s)} under ${n} (looked for ${c} and ${u})`);if(r!==void 0&&!d)throw new w(`--from-step: session ${JSON.stringify(s)} has no journal (looked for ${c})`);const f=d?co(c):void 0;let y,m=null;if(r!==void 0){const T=f.steps;if(r>=T)throw new w(`${c}: step ${r} is out of range (the journal has ${T} step${T===1?"":"s"}${T>0?`, 0..${T-1}`:""})`);m=f.entries[r].row.step_hash,y=Buffer.concat(f.entries.slice(0,r+1).flatMap(U=>[U.bytes,g0]))}const b=[];let _;const k=[];if(r!==void 0){const T=zc(n,s,t);_=Fd(T,r,m),_===void 0&&b.push(T.has(r)?`the snapshot of step ${r} does not match its step_hash; the fork starts at the parent's current commit`:`no worktree snapshot of step ${r}; the fork starts at the parent's current commit`);for(let U=0;U<=r;U++){const P=Fd(T,U,f.entries[U].row.step_hash);P!==void 0&&k.push(P)}}const S=_?.commit??a.head;if(S===void 0)throw new N(`${a.top}: the repository has no commit yet to branch a fork from`);const v=Nd(n,i),A=p0(a.branch,i);if((0,p.existsSync)(v))throw new N(`${v}: already exists; refusing to fork over it`);const x=Yr(n,i);if(x!==void 0)throw new N(`fork id ${i} belonged to a removed fork (tombstone ${x}); choose another id`);const E=yi(n,A,t),B=r===void 0?null:g().join(Be(v,i),pe),$=Si(v,i),C=(e.now??new Date).toISOString().replace(/\.\d{3}Z$/,"Z"),I=[];try{const T=y0(Ge(n));Qe(Ge(n)),I.push({what:"directories",run:l(()=>{for(const Un of[...T].reverse())try{(0,p.rmdirSync)(Un)}catch{}},"run")});const U=c0(Ge(n),{fork_session_id:i,parent_session_id:s,worktree:v,branch:A,branch_existed:E,base:S,from_step:r??null,created_at:C});I.push({what:"intent",run:l(()=>Io(U),"run")}),ve("fork:after-intent",t),I.push({what:"branch",run:l(async()=>{!E&&yi(n,A,t)&&await Ue(n,["branch","-D",A],t)},"run")}),I.push({what:"worktree",run:l(async()=>{if((0,p.existsSync)(v))try{await Ue(n,["worktree","remove","--force","--force",v],t)}catch{(0,p.rmSync)(v,{recursive:!0,force:!0}),await Ue(n,["worktree","prune"],t)}},"run")}),await Ue(n,["worktree","add","--quiet","-b",A,v,S],t),ve("fork:after-worktree",t),B!==null&&jd(B,y),ve("fork:after-journal",t);const fe={parent_session_id:s,label:o,branch:A,branched_from_commit:S,...r===void 0?{}:{from_step:r,parent_step_hash:m,restored_from_snapshot:_?.commit??null},parent_branch:a.branch??null,parent_commit:a.head??S,parent_root:n,worktree:v,created_at:C},Ws={...h??{},session_id:i,fork:fe};if(jd($,`${yp(Ws)}
`),ve("fork:after-session",t),k.length>0){const Un=bi(v,gi(v,t)),Gn=k.map(an=>mo(i,an.seq,Un));po(n,k.map((an,b1)=>`create ${Gn[b1]} ${an.commit}`),t),I.push({what:"snapshot refs",run:l(()=>po(n,Gn.map(an=>`delete ${an}`),t),"run")})}ve("fork:after-refs",t),Io(U)}catch(T){const U=[];for(const Gn of[...I].reverse())if(!(Gn.what==="intent"&&U.length>0))try{await Gn.run()}catch(an){U.push(`${Gn.what}: ${an.message.split(`
`)[0]}`)}const P=_l(T),fe=P!==void 0?P.message:T instanceof it?T.message:`${T.message.split(`
`)[0]}`,Ws=U.length===0?"nothing was left behind":`rollback incomplete (${U.join("; ")}); \`stepchain forks\` lists the half-made fork and \`stepchain fork rm ${i}\` removes it`,Un=`fork ${s}: ${fe}; ${Ws}`;throw P?.exitCode===2?new w(Un):new N(Un)}const O=ki(n,"replay.fork",{actor:fd(t),resource_type:"session",resource_id:i,details:{parent:s,child:i,from_step:r??null,parent_step_hash:m,branch:A}},{env:t});return O!==void 0&&b.push(`fork ${i} created, but ${O}`),{fork_session_id:i,fork_branch:A,fork_worktree:v,fork_commit:S,from_step:r??null,parent_step_hash:m,snapshot_path:$,parent_session_id:s,restored_from_snapshot:_?.commit??null,journal_path:B,warnings:b}}l(Bo,"createFork");function Md(e){return{fork_session_id:e.fork_session_id,fork_branch:e.fork_branch,fork_worktree:e.fork_worktree,fork_commit:e.fork_commit,from_step:e.from_step,parent_step_hash:e.parent_step_hash,snapshot_path:e.snapshot_path,parent_session_id:e.parent_session_id}}l(Md,"forkJsonDocument");function b0(e,t){const n=[];for(const s of t?e.split("\0\0"):e.split(/\n\n+/)){const i={path:"",head:null,branch:null,prunable:!1};for(const r of s.split(t?"\0":`
`))r.startsWith("worktree ")?i.path=r.slice(9):r.startsWith("HEAD ")?i.head=r.slice(5):r.startsWith("branch ")?i.branch=r.slice(7).replace(/^refs\/heads\//,""):(r==="prunable"||r.startsWith("prunable "))&&(i.prunable=!0);i.path&&n.push(i)}return n}l(b0,"parseWorktreeList");const Ht=l((e,t)=>typeof e[t]=="string"?e[t]:null,"str");function w0(e,t){const n=e[t];return typeof n=="number"&&Number.isSafeInteger(n)?n:typeof n=="bigint"&&n>=0n&&n<=BigInt(Number.MAX_SAFE_INTEGER)?Number(n):null}l(w0,"tree_int");function _0(e,t){const n=g().basename(e.path),s=g().dirname(e.path);if(!be(n)||g().basename(s)!=="worktrees"||g().basename(g().dirname(s))!==".sdd")return;const i=e.prunable||!(0,p.existsSync)(e.path);let r;if(i){if(!n.startsWith("fork-")&&t===void 0)return}else{try{const f=Co(Si(e.path,n))?.fork;f!==void 0&&G(f)&&(r=f)}catch{r=void 0}if(r===void 0&&t===void 0&&!u0.test(n))return}const o=r??A0(t),a=w0(o,"from_step");let c=null,u=null;const d=g().join(Be(e.path,n),pe);if(!i&&(0,p.existsSync)(d)){const h=ro(d);c=h.steps,u=h.ok}return{fork_session_id:n,parent_session_id:Ht(o,"parent_session_id"),label:Ht(o,"label"),branch:e.branch??Ht(o,"branch"),worktree:e.path,from_step:a,parent_step_hash:Ht(o,"parent_step_hash"),branched_from_commit:Ht(o,"branched_from_commit"),restored_from_snapshot:Ht(o,"restored_from_snapshot"),created_at:Ht(o,"created_at"),head_commit:e.head,steps:c,steps_since:c===null?null:Math.max(0,c-(a===null?0:a+1)),journal_ok:u,missing:i,incomplete:t!==void 0||!i&&r===void 0,creator_pid:t===void 0?null:Td(t)??null,children:[]}}l(_0,"nodeOf");function A0(e){return e===void 0?{}:{parent_session_id:e.parent_session_id,branch:e.branch,branched_from_commit:e.base,created_at:e.created_at,...e.from_step===null?{}:{from_step:e.from_step}}}l(A0,"intentBlock");function k0(e){return{fork_session_id:e.fork_session_id,parent_session_id:e.parent_session_id,label:null,branch:e.branch,worktree:e.worktree,from_step:e.from_step,parent_step_hash:null,branched_from_commit:e.base,restored_from_snapshot:null,created_at:e.created_at,head_commit:null,steps:null,steps_since:null,journal_ok:null,missing:!(0,p.existsSync)(e.worktree),incomplete:!0,creator_pid:Td(e)??null,children:[]}}l(k0,"intentOnlyNode");async function $i(e,t=process.env){gi(e,t);const n=["worktree","list","--porcelain","-z"];let s=!0,i;try{i=await Ue(e,n,t)}catch{s=!1;const h=n.slice(0,3);i=await Ue(e,h,t)}const r=b0(i,s),o=new Map;for(const h of r)for(const{intent:f}of Rd(Ge(h.path))){const y=g().join(Ge(h.path),f.fork_session_id);o.set(y,{...f,worktree:y})}const a=new Map;for(const h of r){const f=_0(h,o.get(g().resolve(h.path)));f!==void 0&&!a.has(f.fork_session_id)&&a.set(f.fork_session_id,f)}for(const h of o.values())a.has(h.fork_session_id)||a.set(h.fork_session_id,k0(h));const c=[];for(const h of a.values()){const f=h.parent_session_id===null?void 0:a.get(h.parent_session_id);f!==void 0&&f!==h?f.children.push(h):c.push(h)}const u=l((h,f)=>(h.created_at??"").localeCompare(f.created_at??"")||h.fork_session_id.localeCompare(f.fork_session_id),"order"),d=l(h=>{h.sort(u);for(const f of h)d(f.children)},"sortAll");return d(c),c}l($i,"listForks");function Oo(e){return e.flatMap(t=>[t,...Oo(t.children)])}l(Oo,"flattenForks");function v0(e){const t=[e.fork_session_id];return e.label&&t.push(R(JSON.stringify(e.label))),t.push(e.from_step===null?"session-level fork":`from step ${e.from_step}`),e.steps_since!==null&&t.push(`+${e.steps_since} step${e.steps_since===1?"":"s"} since`),e.restored_from_snapshot&&t.push(`files of step ${e.from_step}`),e.journal_ok===!1&&t.push("JOURNAL DOES NOT VERIFY"),e.missing&&t.push("WORKTREE MISSING"),e.incomplete&&t.push(e.creator_pid!==null?`BEING CREATED (pid ${e.creator_pid})`:`INCOMPLETE (creation interrupted; remove it: stepchain fork rm ${e.fork_session_id})`),t.join("  ")}l(v0,"summary");function E0(e){if(e.length===0)return["no forks"];const t=[],n=l((i,r)=>{i.forEach((o,a)=>{const c=a===i.length-1;t.push(`${r}${c?"\u2514\u2500\u2500 ":"\u251C\u2500\u2500 "}${v0(o)}`);const u=`${r}${c?"    ":"\u2502   "}`,d=o.children.length>0?"\u2502 ":"  ";t.push(`${u}${d}  branch   ${R(o.branch??"(none)")}`),t.push(`${u}${d}  worktree ${R(o.worktree)}`),n(o.children,u)})},"draw"),s=new Map;for(const i of e){const r=i.parent_session_id??"(unknown session)";s.set(r,[...s.get(r)??[],i])}for(const[i,r]of s)t.push(R(i)),n(r,"");return t}l(E0,"drawForks");function P1(e){const t=["flowchart TD"],n=new Map,s=l(a=>{let c=n.get(a);return c===void 0&&(c=`n${n.size}`,n.set(a,c)),c},"idOf"),i=l(a=>a.replace(/"/g,"#quot;"),"esc"),r=new Set(e.map(a=>a.parent_session_id??"(unknown session)"));for(const a of r)t.push(`  ${s(`session:${a}`)}["${i(a)}"]`);const o=l((a,c)=>{const u=s(`fork:${a.fork_session_id}`),d=[a.fork_session_id,a.branch??"",a.steps_since===null?"":`+${a.steps_since} steps`].filter(Boolean).join("<br/>");t.push(`  ${u}["${i(d)}"]`),t.push(`  ${c} -->|${a.from_step===null?"session":`step ${a.from_step}`}| ${u}`);for(const h of a.children)o(h,u)},"walk");for(const a of e)o(a,s(`session:${a.parent_session_id??"(unknown session)"}`));return`${t.join(`
`)}
`}l(P1,"forksMermaid");const S0=5e3;function xi(e,t){throw new N(`fork ${e}: ${t}; nothing was removed (use --force to remove it anyway)`)}l(xi,"refuse");async function Ld(e,t,n={}){const s=n.env??process.env,i=n.force===!0;ce(t,"fork id"),gi(e,s);const r=Oo(await $i(e,s)).find(y=>y.fork_session_id===t);if(r===void 0)throw new w(`no fork ${JSON.stringify(t)} in this repository (see \`stepchain forks\`)`);if(r.children.length>0)throw new N(`fork ${t} has forks of its own (${r.children.map(y=>y.fork_session_id).join(", ")}): remove them first`);r.creator_pid!==null&&!i&&xi(t,`it is being created right now (pid ${r.creator_pid})`);const o=Be(r.worktree,t),a=g().join(o,pe);let c;if(!r.missing&&(0,p.existsSync)(o)){const y=Zp(`${a}.lock`);y!==void 0&&!i&&xi(t,`a writer is recording into it (its journal lock is held by ${y})`),y===void 0&&(c=li(`${a}.lock`,{timeoutMs:S0}),c.heartbeat())}const u=mn(r.worktree)?.parent,d=g().relative(r.worktree,e),f=(d===""||!d.startsWith("..")&&!g().isAbsolute(d))&&u!==void 0?u:e;try{return await $0(f,r,i,s,a,n.tombstone!==!1)}finally{c?.()}}l(Ld,"removeFork");async function $0(e,t,n,s,i,r){const o=t.fork_session_id;if(!t.missing&&(0,p.existsSync)(t.worktree)&&!t.incomplete&&!n){const S=["status","--porcelain","-z","--untracked-files=all","--ignore-submodules=dirty","--",...Qc],v=(await Ue(t.worktree,S,s)).split("\0"),A=[];for(let x=0;x<v.length;x++){const E=v[x];E.length<4||(A.push(E),(E[0]==="R"||E[0]==="C")&&x++)}if(A.length>0)throw new N(`fork ${o} has uncommitted changes in ${t.worktree} (${A.length} path${A.length===1?"":"s"}, e.g. ${JSON.stringify(A[0].slice(3))}): commit them or use --force`)}let a=null,c=null,u=null;if(!t.missing&&(0,p.existsSync)(i)){const S=ro(i);a=S.steps,c=S.head_hash,u=Math.max(0,a-(t.from_step===null?0:t.from_step+1)),!n&&!S.ok&&xi(o,`its journal ${i} does not verify (see \`stepchain verify ${i}\`)`),!n&&u>0&&xi(o,`${u} step${u===1?" was":"s were"} recorded since the fork point (${i}, head ${c}); keep them (stepchain export ${i} ...)`)}const d=mn(t.worktree),h=d===void 0?void 0:Rd(Ge(d.parent)).find(S=>S.intent.fork_session_id===o);let f=null;const y=t.branch,m=h?.intent.branch_existed===!0;y!==null&&!m&&yi(e,y,s)&&(f=lg(e,`refs/heads/${y}`,s)??null);const b=d===void 0||!r?null:dm(d.parent,{fork_session_id:o,removed_at:new Date().toISOString(),worktree:t.worktree,branch:y,branch_commit:f,steps:a,head_hash:c,forced:n});if(!t.missing&&(0,p.existsSync)(t.worktree)){const S=["worktree","remove","--force",...t.incomplete?["--force"]:[],t.worktree];try{await Ue(e,S,s)}catch(v){if(!t.incomplete&&!n)throw v;(0,p.rmSync)(t.worktree,{recursive:!0,force:!0,maxRetries:10,retryDelay:50})}}await Ue(e,["worktree","prune"],s),y!==null&&!m&&yi(e,y,s)&&await Ue(e,["branch","-D",y],s);const k=Hc(e,`${ns}/${o}/`,s);if(po(e,k.map(S=>`delete ${S.ref} ${S.commit}`),s),d!==void 0){Io(Od(Ge(d.parent),o));try{(0,p.rmdirSync)(Ge(d.parent))}catch{}}return{fork_session_id:o,worktree:t.worktree,branch:y,branch_commit:f,removed_snapshot_refs:k.length,steps:a,steps_since:u,tombstone:b,incomplete:t.incomplete}}l($0,"removeLocked");const x0=g().sep==="\\"?/[\\/]+/:/\/+/;function Ro(e){const t=e.split(x0).filter(n=>n!==""&&n!==".");if(g().isAbsolute(e)||t.includes(".."))throw new Error(`${JSON.stringify(e)} is not a path inside the root`);return t}l(Ro,"components");function En(e,t,n){const s=Ro(t);let i=e;for(let r=0;r<s.length;r++){i=g().join(i,s[r]);const o=r<s.length-1?s.slice(0,r+1).join("/"):void 0;if(o!==void 0&&n?.has(o))continue;let a;try{a=(0,p.lstatSync)(i)}catch{return{kind:"missing"}}if(a.isSymbolicLink())return{kind:"symlink",at:s.slice(0,r+1).join("/")};if(o!==void 0){if(!a.isDirectory())return{kind:"missing"};n?.add(o);continue}return a.isFile()?{kind:"file",size:a.size}:a.isDirectory()?{kind:"dir"}:{kind:"other"}}return{kind:"dir"}}l(En,"nofollow_lstatUnder");const I0=p.constants.O_RDONLY|(p.constants.O_NOFOLLOW??0)|(p.constants.O_NONBLOCK??0);function rs(e,t,n=Number.POSITIVE_INFINITY,s){const i=En(e,t,s);if(i.kind==="symlink"||i.kind==="missing")return i;if(i.kind!=="file")return{kind:"other"};let r;try{r=(0,p.openSync)(g().join(e,...Ro(t)),I0)}catch(o){const a=o.code;if(a==="ELOOP")return{kind:"symlink",at:Ro(t).join("/")};if(a==="ENOENT"||a==="ENOTDIR")return{kind:"missing"};throw o}try{const o=(0,p.fstatSync)(r);if(!o.isFile())return{kind:"other"};if(o.size>n)return{kind:"too_large",size:o.size};const a=Buffer.allocUnsafe(o.size);let c=0;for(;c<o.size;){const u=(0,p.readSync)(r,a,c,o.size-c,c);if(u===0)break;c+=u}return{kind:"file",bytes:c===o.size?a:a.subarray(0,c)}}finally{(0,p.closeSync)(r)}}l(rs,"nofollow_readUnder");function C0(e){return/[.+^$()|\\\]{}[*?]/.test(e)?`\\${e}`:e}l(C0,"escapeRe");function To(e){let t=e.trim().replace(/\\/g,"/");for(;t.startsWith("./");)t=t.slice(2);if(t.startsWith("/"))throw new w(`glob ${JSON.stringify(e)}: patterns are relative to the repository`);if(t.split("/").includes(".."))throw new w(`glob ${JSON.stringify(e)}: patterns stay inside the repository (no "..")`);let n="",s=0;for(let i=0;i<t.length;i++){const r=t[i];if(r==="*"){if(t[i+1]==="*"){const o=i===0||t[i-1]==="/",a=i+2===t.length||t[i+2]==="/";if(o&&a){i+2===t.length?n+=".*":n+="(?:[^/]+/)*",i+=2;continue}i++}n+="[^/]*"}else if(r==="?")n+="[^/]";else if(r==="["){const o=t.indexOf("]",i+2);if(o<0){n+="\\[";continue}let a=t.slice(i+1,o);a.startsWith("!")&&(a=`^${a.slice(1)}`),n+=`[${a.replace(/\\/g,"\\\\")}]`,i=o}else r==="{"?(n+="(?:",s++):r==="}"&&s>0?(n+=")",s--):r===","&&s>0?n+="|":n+=C0(r)}if(s>0)throw new w(`glob ${JSON.stringify(e)}: unclosed "{"`);return new RegExp(`^${n}$`)}l(To,"globToRegExp");function B0(e){const t=Array.isArray(e)?e:e.split(/\r?\n/),n=[];for(const s of t){let i=0,r="";for(const o of s)o==="{"&&i++,o==="}"&&(i=Math.max(0,i-1)),o===","&&i===0?(r.trim()&&n.push(r.trim()),r=""):r+=o;r.trim()&&n.push(r.trim())}return n}l(B0,"parsePatterns");function Ii(e){const t=B0(e),n={include:[],exclude:[],patterns:t};for(const s of t)s.startsWith("!")?n.exclude.push(To(s.slice(1))):n.include.push(To(s));return n}l(Ii,"glob_globSet");function os(e,t){return e.include.some(n=>n.test(t))&&!e.exclude.some(n=>n.test(t))}l(os,"matchesGlob");const O0=new Set([".git","node_modules"]),R0=new Set([".sdd/worktrees"]);function T0(e){const t=e.replace(/^(\.\/)+/,"").split("/"),n=[];for(const s of t.slice(0,-1)){if(/[*?[{]/.test(s))break;n.push(s)}return n.join("/")}l(T0,"staticPrefix");function N0(e,t){const n=e.replace(/^(\.\/)+/,"");if(/\{[^}]*\/[^}]*\}/.test(n))return"globstar";const s=n.split("/"),i=t.split("/");for(let r=0;r<i.length;r++){if(s[r]==="**")return"globstar";if(r>=s.length-1||!To(s[r]).test(i[r]))return!1}return s.length>i.length?"exact":!1}l(N0,"reachBelow");function j0(e,t,n){if(e.exclude.some(i=>i.test(t)||i.test(`${t}/`)))return;if(e.include.some(i=>i.test(t)))return"error";if(!n)return;let s;for(const i of e.patterns){if(i.startsWith("!"))continue;const r=N0(i,t);if(r==="exact")return"error";r==="globstar"&&(s="warning")}return s}l(j0,"linkSeverity");function No(e,t,n){const s=new Set,i=new Map,r=l((h,f)=>{i.get(h)!=="error"&&i.set(h,f)},"addLink"),o=l(h=>{let f=n?.get(h);if(f===void 0){try{f=(0,p.readdirSync)(h===""?e:g().join(e,h),{withFileTypes:!0})}catch{f=null}n?.set(h,f)}if(f!==null)for(const y of f){const m=h===""?y.name:`${h}/${y.name}`;if(y.isSymbolicLink()){let b=!1;try{b=(0,p.statSync)(g().join(e,m)).isDirectory()}catch{}const _=j0(t,m,b);_!==void 0&&r(m,_)}else if(y.isDirectory()){if(O0.has(y.name)||R0.has(m))continue;o(m)}else y.isFile()&&os(t,m)&&s.add(m)}},"walk"),a=l(h=>!/[*?[{]/.test(h),"literal"),c=t.patterns.filter(h=>!h.startsWith("!"));for(const h of c.filter(a)){const f=h.replace(/^(\.\/)+/,""),y=En(e,f);y.kind==="symlink"?r(y.at,"error"):y.kind==="file"&&os(t,f)&&s.add(f)}const u=new Set(c.filter(h=>!a(h)).map(T0)),d=[...u].filter(h=>![...u].some(f=>f!==h&&(f===""||h.startsWith(`${f}/`))));for(const h of d){if(h!==""){const f=En(e,h);if(f.kind==="symlink"){r(f.at,"error");continue}if(f.kind!=="dir")continue}o(h)}return{files:[...s].sort(),links:[...i].map(([h,f])=>({path:h,severity:f})).sort((h,f)=>h.path<f.path?-1:h.path>f.path?1:0)}}l(No,"glob_scanFiles");function D1(e,t){return No(e,t).files}l(D1,"findFiles");const Pd="**/.sdd/runtime/sessions/*.json";function F0(e,t=Pd,n){const s=new Map;for(const i of No(e,Ii(t),n).files){let r;try{const h=rs(e,i,1048576);if(h.kind!=="file")continue;r=Yn(h.bytes)}catch{continue}if(!G(r))continue;const o=r.fork;if(!G(o))continue;const a=g().basename(i,".json"),c=o.parent_session_id;if(!be(a)||typeof c!="string")continue;const u=o.from_step,d=o.label;s.set(a,{id:a,parent:c,fromStep:pt(u)&&typeof u=="number"?u:null,label:typeof d=="string"?d:null})}return[...s.values()].sort((i,r)=>i.id.localeCompare(r.id))}l(F0,"forkTreeFromSessions");async function M0(e,t=Pd,n=process.env,s){const i=new Map(F0(e,t,s).map(r=>[r.id,r]));try{for(const r of Oo(await $i(e,n)))i.has(r.fork_session_id)||i.set(r.fork_session_id,{id:r.fork_session_id,parent:r.parent_session_id,fromStep:r.from_step,label:r.label})}catch{}return[...i.values()].sort((r,o)=>r.id.localeCompare(o.id))}l(M0,"forkTree");function as(e){return e instanceof it?e.message:e instanceof Error?e.message.split(`
`)[0]:String(e)}l(as,"oneLine");async function Dd(e,t){try{return await Re(e,["cat-file","-e",`${t}^{commit}`]),!0}catch{return!1}}l(Dd,"hasCommit");async function L0(e,t,n="origin"){if(!/^[0-9a-f]{7,64}$/i.test(t))throw new w(`bad commit id ${JSON.stringify(t)}`);try{await Re(e,["rev-parse","--git-dir"])}catch{throw new w(`${e}: not a git repository (the append-only check needs the checkout's history)`)}if(await Dd(e,t))return!1;try{await Re(e,["fetch","--no-tags","--no-recurse-submodules","--depth=1",n,t])}catch(s){throw new w(`cannot fetch the commit ${t} from ${n}: ${as(s)}`)}if(!await Dd(e,t))throw new w(`the commit ${t} is still missing after fetching it from ${n}`);return!0}l(L0,"ensureCommit");async function jo(e,t,n){const s=typeof n=="function"?n:o=>os(n,o);let i;try{i=await Re(e,["ls-tree","-r","-z","--full-tree",t])}catch(o){throw new w(`cannot list the files of commit ${t}: ${as(o)}`)}const r=[];for(const o of i.toString("utf8").split("\0")){const a=o.indexOf("	");if(a<0)continue;const[c,u,d]=o.slice(0,a).split(" "),h=o.slice(a+1);u!=="blob"||c==="120000"||d===void 0||!s(h)||r.push({path:h,oid:d})}return r.sort((o,a)=>o.path<a.path?-1:o.path>a.path?1:0)}l(jo,"listBlobsAtCommit");async function H1(e,t,n){return(await jo(e,t,n)).map(s=>s.path)}l(H1,"listFilesAtCommit");async function P0(e){let t;try{t=(await Re(e,["config","--get-regexp","^remote\\..*\\.promisor$"])).toString("utf8")}catch{return}for(const n of t.split(`
`)){const s=/^remote\.(.+)\.promisor (.*)$/.exec(n);if(s&&/^(true|yes|on|1)$/i.test(s[2]))return s[1]}}l(P0,"promisorRemote");async function Hd(e,t,n){if(n.length===0)return 0;const s=await P0(e);if(s===void 0)return 0;let i;try{i=(await Re(e,["rev-list","--objects","--missing=print","--no-walk",t])).toString("utf8")}catch(a){throw new w(`cannot list the objects of commit ${t}: ${as(a)}`)}const r=new Set;for(const a of i.split(`
`))a.startsWith("?")&&r.add(a.slice(1).trim());const o=[...new Set(n)].filter(a=>r.has(a));if(o.length===0)return 0;try{await Re(e,["-c","fetch.negotiationAlgorithm=noop","fetch","--no-tags","--no-write-fetch-head","--recurse-submodules=no","--filter=blob:none","--stdin",s],{input:`${o.join(`
`)}
`})}catch(a){throw new w(`cannot fetch ${o.length} blobs of commit ${t} from ${s}: ${as(a)}`)}return o.length}l(Hd,"prefetchBlobs");function D0(e,t){const n=[];let s=0;for(let i=0;i<t.length;i++){const r=e.indexOf(10,s);if(r<0)throw new w("git cat-file: truncated output");const o=e.subarray(s,r).toString("utf8");s=r+1;const a=/^[0-9a-f]+ (\w+) (\d+)$/.exec(o);if(a===null){n.push(void 0);continue}const c=Number(a[2]);n.push(a[1]==="blob"?e.subarray(s,s+c):void 0),s+=c+1}return n}l(D0,"parseBatch");async function H0(e,t){if(t.length===0)return[];let n;try{n=await Re(e,["cat-file","--batch"],{input:t.map(s=>`${s}
`).join("")})}catch(s){throw new w(`git cat-file failed: ${as(s)}`)}return D0(n,t)}l(H0,"catFileBatch");async function Qd(e,t){const n=[...new Set(t)],s=await H0(e,n);return new Map(n.map((i,r)=>[i,s[r]]))}l(Qd,"readBlobs");async function Q1(e,t,n){const s=new Map;if(n.length===0)return s;const i=new Set(n),r=await jo(e,t,c=>i.has(c));await Hd(e,t,r.map(c=>c.oid));const o=new Map(r.map(c=>[c.path,c.oid])),a=await Qd(e,r.map(c=>c.oid));for(const c of n){const u=o.get(c);s.set(c,u===void 0?void 0:a.get(u))}return s}l(Q1,"readFilesAtCommit");async function Q0(e,t){if(t.startsWith("-"))throw new w(`bad ref ${JSON.stringify(t)}`);let n="";try{n=(await Re(e,["rev-parse","--verify","--quiet",`${t}^{commit}`])).toString("utf8").trim()}catch{}if(!/^[0-9a-f]{40,64}$/.test(n))throw new w(`--base ${t}: no such commit in ${e} (a branch, tag or commit id; fetch it first?)`);return n}l(Q0,"resolveCommit");async function U0(e){try{return(await Re(e,["rev-parse","--verify","--quiet","HEAD^{commit}"])).toString("utf8").trim()}catch{return}}l(U0,"headCommit");async function U1(e,t){try{return(await gitRun(e,["rev-list","--parents","-n","1",t])).toString("utf8").trim().split(" ").slice(1)}catch{return[]}}l(U1,"parentsOf");async function G1(e,t,n="HEAD"){try{const s=(await gitRun(e,["cat-file","commit",n])).toString("utf8");if(s.slice(0,s.indexOf(`

`)).split(`
`).some(r=>r===`parent ${t}`))return t}catch{return}try{return await gitRun(e,["merge-base","--is-ancestor",t,n]),t}catch{}try{const s=(await gitRun(e,["merge-base",t,n])).toString("utf8").trim();return/^[0-9a-f]{40,64}$/.test(s)?s:void 0}catch{return}}l(G1,"forkPoint");const W1="<!-- stepchain-check -->",G0=1e6,z1=65536,W0=/[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069\u200b-\u200f\ufeff]/g;function Ud(e){return e.replace(W0,t=>`\\u${t.charCodeAt(0).toString(16).padStart(4,"0")}`)}l(Ud,"markdown_visible");function Gd(e,t){const n=Array.from(e);return n.length<=t?e:`${n.slice(0,t-1).join("")}\u2026`}l(Gd,"clip");function Qt(e,t=300){const n=Ud(Gd(e,t));let s="";for(let i=0;i<n.length;i++){const r=n[i],o=r.charCodeAt(0),a=/[A-Za-z0-9 \-/,]/.test(r)||r==="."&&!/www$/i.test(n.slice(Math.max(0,i-3),i));s+=a||o>127?r:`&#${o};`}return s}l(Qt,"mdText");function ls(e,t=300){return`<code>${Qt(e,t)}</code>`}l(ls,"mdCode");function Ci(e,t=60){let n="";for(const s of Gd(e,t)){const i=s.codePointAt(0);/[A-Za-z0-9 ,.\-/_]/.test(s)?n+=s:Ud(s)!==s?n+="#65533;":n+=`#${i};`}return n}l(Ci,"mermaidText");function Fo(e,t){let n=t.get(e);return n===void 0&&(n=`n${t.size}`,t.set(e,n)),n}l(Fo,"mermaidId");const z0=45e3;function q0(e,t=200){if(e.length===0)return"";const n=new Map,s=l((h,f)=>`  ${Fo(h,n)}["${f?`${Ci(h)}<br/>${Ci(f)}`:Ci(h)}"]`,"nodeLine"),i=l(h=>`  ${Fo(h.parent,n)} -->|"${Ci(h.fromStep===null?"session":`step ${h.fromStep}`)}"| ${Fo(h.id,n)}`,"edgeLine"),r=[...e].sort((h,f)=>(h.parent??"").localeCompare(f.parent??"")||h.id.localeCompare(f.id)),o=[];let a=40;for(const h of r.slice(0,t)){const f=s(h.id,h.label).length+1+(h.parent===null?0:i(h).length+s(h.parent,null).length+2);if(a+f>z0)break;a+=f,o.push(h)}const c=["```mermaid","flowchart LR"],u=new Set,d=l((h,f)=>{u.has(h)||(u.add(h),c.push(s(h,f)))},"declare");for(const h of o)d(h.id,h.label);for(const h of o)h.parent!==null&&d(h.parent,null);for(const h of o)h.parent!==null&&c.push(i(h));return c.push("```"),e.length>o.length&&c.push("",`\u2026 and ${e.length-o.length} more forks (see the JSON report).`),c.join(`
`)}l(q0,"forkTreeMermaid");function Wd(e,t){return`${e} ${t}${e===1?"":"s"}`}l(Wd,"plural");function J0(e,t={}){const n=t.maxFaults??500,s=t.maxRows??5e3,i=t.maxChars!==void 0?v=>v.length:v=>Buffer.byteLength(v,"utf8"),r=t.maxChars??t.maxBytes??G0,o=e.faults.filter(v=>v.severity==="error"),a=e.faults.filter(v=>v.severity==="warning"),c=e.ok?e.items.length===0?"\u26A0\uFE0F nothing checked":"\u2705 verified":"\u274C failed",u=e.shard===null?"":` (shard ${e.shard.index+1} of ${e.shard.count})`,d=[];d.push(`## ${Qt(t.title??"stepchain",100)}${u}: ${c}`,"");const h=e.base===null?"append-only not checked":`append-only checked against base ${ls(e.base.slice(0,12))}`;d.push(`${e.verified} verified, ${e.failed} failed, ${Wd(o.length,"fault")}${a.length>0?`, ${Wd(a.length,"warning")}`:""}; ${h}.`,"");for(const v of t.notes??[])d.push(`> ${Qt(v,1e3)}`,"");if(e.trustedKeys.length>0){d.push("Trusted keys:","");for(const v of e.trustedKeys.slice(0,50))d.push(`- ${ls(v.keyId,80)} from ${Qt(v.source)}`);e.trustedKeys.length>50&&d.push(`- \u2026 and ${e.trustedKeys.length-50} more`),d.push("")}const f=e.faults.slice(0,n).map(v=>{const A=v.line===null?v.path:`${v.path}:${v.line}`;return`- ${v.severity==="error"?"\u274C":"\u26A0\uFE0F"} ${ls(A)}: ${Qt(v.message,500)}`}),y=e.items.slice(0,s).map(v=>{const A=v.head===""?"":ls(v.head.slice(0,12)),x=v.appendOnly===void 0||v.appendOnly==="renamed"?"":` \xB7 ${v.appendOnly}`;return`| ${v.ok?"\u2705":"\u274C"} | ${v.kind} | ${ls(v.path)} | ${Qt(v.id,100)} | ${v.steps} | ${A} | ${Qt(v.status,200)}${x} |`}),m=q0(t.forks??[],t.maxForks??200),b=[...d];let _=i(b.join(`
`))+200;const k=l(v=>_+i(v.join(`
`))+v.length<=r,"fits"),S=l(v=>k([v])?(b.push(v),_+=i(v)+1,!0):!1,"take");if(e.faults.length>0){S("### Faults"),S("");let v=0;for(const A of f){if(!S(A))break;v++}e.faults.length>v&&b.push(`- \u2026 and ${e.faults.length-v} more (see the JSON report).`),b.push("")}if(e.items.length>0){const v=["| | Kind | File | Id | Steps | Head | Status |","|---|---|---|---|---:|---|---|"];if(k(v)){S(v[0]),S(v[1]);let A=0;for(const x of y){if(!S(x))break;A++}e.items.length>A&&b.push("",`\u2026 and ${e.items.length-A} more files (see the JSON report).`),b.push("")}else b.push(`${e.items.length} files checked (see the JSON report).`,"")}else b.push("No journals, runs or receipts were found.","");if(m!==""){const v=["### Fork tree","",m,""];k(v)?b.push(...v):b.push("(The fork tree is left out to keep within GitHub\u2019s size limit; see the JSON report.)","")}return b.join(`
`)}l(J0,"renderCheckMarkdown");const Mo="0.1.0",zd=`stepchain/${Mo}`,qd=Buffer.from("302e020100300506032b657004220420","hex"),K0=Buffer.from("302a300506032b6570032100","hex");function Jd(e){return ae(e).slice(0,16)}l(Jd,"keyIdOf");function Kd(e){const t=e.export({format:"der",type:"spki"});return Buffer.from(t.subarray(t.length-32))}l(Kd,"rawOfPublic");function Yd(e,t,n="pem"){const s=Kd(e);return{key:e,raw:s,keyId:Jd(s),source:t,form:n}}l(Yd,"publicFromKeyObject");const We=2n**255n-19n,Te=l(e=>(e%We+We)%We,"modP");function cs(e,t){let n=1n,s=Te(e);for(let i=t;i>0n;i>>=1n)i&1n&&(n=n*s%We),s=s*s%We;return n}l(cs,"powP");const Lo=l(e=>cs(e,We-2n),"invP"),Vd=Te(-121665n*Lo(121666n)),Y0=cs(2n,(We-1n)/4n);function V0(e){let t=0n;for(let a=31;a>=0;a--)t=t<<8n|BigInt(a===31?e[a]&127:e[a]);const n=e[31]>>7;if(t>=We)return"non-canonical";const s=Te(t*t-1n),i=Te(Vd*t*t+1n);let r=Te(s*cs(i,3n)*cs(s*cs(i,7n),(We-5n)/8n));const o=Te(i*r*r);if(o===Te(-s))r=Te(r*Y0);else if(o!==s)return"not on the curve";return r===0n&&n===1?"non-canonical":(Number(r&1n)!==n&&(r=We-r),{x:r,y:t})}l(V0,"decodePoint");function X0(e,t){const n=Te(Vd*e.x*t.x*e.y*t.y);return{x:Te((e.x*t.y+e.y*t.x)*Lo(1n+n)),y:Te((e.y*t.y+e.x*t.x)*Lo(1n-n))}}l(X0,"addPoints");function Xd(e){const t=V0(e);if(typeof t=="string")return t==="non-canonical"?"a non-canonical point encoding":"not a point on the curve";let n=t;for(let s=0;s<3;s++)n=X0(n,n);if(n.x===0n&&n.y===1n)return"a point of small order (such a key verifies signatures nobody made: any manifest with S = 0)"}l(Xd,"publicKeyProblem");function Zd(e,t){const n=e.match(/-----BEGIN [A-Z0-9 ]+-----[\s\S]*?-----END [A-Z0-9 ]+-----/g)??[];if(n.length>1)throw new w(`${t}: holds ${n.length} keys; a key file holds one (give --public-key once per key)`);if(n.length===1&&e.replace(n[0],"").trim()!=="")throw new w(`${t}: text outside the PEM block; a key file holds one PEM key and nothing else`);return n[0]??e}l(Zd,"singlePem");function eu(e){return/^-----BEGIN ([A-Z0-9 ]+)-----/m.exec(e)?.[1]}l(eu,"pemLabel");function tu(e){return e.length>0&&/^[\x09\x0a\x0d\x20-\x7e]*$/.test(e.toString("latin1"))}l(tu,"looksLikeText");function Z0(e,t){let n;const s=tu(e)?e.toString("latin1"):void 0,i=s===void 0?void 0:eu(s);if(i!==void 0){if(i==="ENCRYPTED PRIVATE KEY")throw new w(`${t}: encrypted private keys are not supported (use an unencrypted PKCS#8 PEM)`);if(i==="PUBLIC KEY")throw new w(`${t}: this is a public key; a private key (PEM PKCS#8 or a raw 32-byte seed) is needed`);if(i!=="PRIVATE KEY")throw new w(`${t}: not a PKCS#8 private key (PEM "${i}"); expected "PRIVATE KEY" or a raw 32-byte seed`);const o=Zd(s,t);try{n=(0,D.createPrivateKey)({key:o,format:"pem"})}catch{throw new w(`${t}: malformed PEM private key`)}}else if(e.length===32)n=(0,D.createPrivateKey)({key:Buffer.concat([qd,e]),format:"der",type:"pkcs8"});else throw new w(`${t}: not an Ed25519 private key: expected PEM PKCS#8 or a raw 32-byte seed, got ${e.length} bytes`);if(n.asymmetricKeyType!=="ed25519")throw new w(`${t}: a ${n.asymmetricKeyType??"non-Ed25519"} key; receipts are signed with Ed25519`);const r=Yd((0,D.createPublicKey)(n),t);return{key:n,publicKey:r,keyId:r.keyId,source:t}}l(Z0,"parsePrivateKey");function ey(e,t){let n,s="pem";const i=tu(e)?e.toString("latin1"):void 0,r=i===void 0?void 0:eu(i);if(r!==void 0){if(r.includes("PRIVATE KEY"))throw new w(`${t}: this is a private key; give the public key (PEM SPKI or 32 raw bytes)`);if(r!=="PUBLIC KEY")throw new w(`${t}: not an SPKI public key (PEM "${r}"); expected "PUBLIC KEY" or 32 raw bytes`);const c=Zd(i,t);try{n=(0,D.createPublicKey)({key:c,format:"pem"})}catch{throw new w(`${t}: malformed PEM public key`)}}else if(e.length===32){if(Xd(e)==="not a point on the curve")throw new w(`${t}: 32 bytes that are not an Ed25519 public key (not a point on the curve): is this a raw private seed? Give the public key (PEM SPKI, as \`stepchain keygen --public\` writes it) and keep the seed secret`);try{n=(0,D.createPublicKey)({key:Buffer.concat([K0,e]),format:"der",type:"spki"})}catch{throw new w(`${t}: 32 bytes that are not an Ed25519 public key`)}s="raw"}else throw new w(`${t}: not an Ed25519 public key: expected PEM SPKI or 32 raw bytes, got ${e.length} bytes`);if(n.asymmetricKeyType!=="ed25519")throw new w(`${t}: a ${n.asymmetricKeyType??"non-Ed25519"} key; receipts are signed with Ed25519`);const o=Yd(n,t,s),a=Xd(o.raw);if(a!==void 0)throw new w(`${t}: refused as a trusted key: ${a}`);return o}l(ey,"parsePublicKey");function ty(e,t,n){if(n.form!=="raw")return!1;try{const s=(0,D.createPrivateKey)({key:Buffer.concat([qd,n.raw]),format:"der",type:"pkcs8"});return(0,D.verify)(null,e,(0,D.createPublicKey)(s),t)}catch{return!1}}l(ty,"isSignersSeed");function nu(e,t){let n;try{n=(0,p.statSync)(e)}catch{throw new w(`${e}: cannot read ${t}: no such file`)}if(!n.isFile())throw new w(`${e}: cannot read ${t}: not a regular file`);if(n.size>64*1024)throw new w(`${e}: not a key file (${n.size} bytes)`);try{return(0,p.readFileSync)(e)}catch(s){throw new w(`${e}: cannot read ${t}: ${s.code??s.message}`)}}l(nu,"readKeyBytes");function ny(e){return Z0(nu(e,"private key"),e)}l(ny,"readPrivateKeyFile");function ds(e){return ey(nu(e,"public key"),e)}l(ds,"readPublicKeyFile");function sy(e,t){return(0,D.sign)(null,e,t.key)}l(sy,"signBytes");function iy(e,t,n){try{return(0,D.verify)(null,e,n.key,t)}catch{return!1}}l(iy,"verifyBytes");function ry(){const{privateKey:e,publicKey:t}=(0,D.generateKeyPairSync)("ed25519");return{privateKeyPem:e.export({format:"pem",type:"pkcs8"}).toString(),publicKeyPem:t.export({format:"pem",type:"spki"}).toString(),keyId:Jd(Kd(t))}}l(ry,"generateKeyPair");function su(e,t,n){let s;try{s=(0,p.openSync)(e,"wx",n)}catch(i){const r=i.code;throw r==="EEXIST"?new w(`${e}: already exists; refusing to overwrite a key file`):r==="ENOENT"||r==="ENOTDIR"?new w(`${e}: cannot create: the directory ${g().dirname(g().resolve(e))} does not exist`):W(i)?X(i,e,"cannot create"):i}try{(0,p.fchmodSync)(s,n),He(s,Buffer.from(t)),(0,p.fsyncSync)(s)}catch(i){(0,p.closeSync)(s);try{(0,p.unlinkSync)(e)}catch{}throw W(i)?X(i,e,"cannot write"):i}(0,p.closeSync)(s)}l(su,"writeNew");function oy(e){try{return(0,p.statSync)(e),!0}catch{return!1}}l(oy,"keys_exists");function ay(e,t){if(t!==void 0&&t===e)throw new w("the private and public key files must differ");for(const s of[e,t])if(s!==void 0&&oy(s))throw new w(`${s}: already exists; refusing to overwrite a key file`);const n=ry();if(su(e,n.privateKeyPem,384),t!==void 0)try{su(t,n.publicKeyPem,420)}catch(s){throw(0,p.unlinkSync)(e),s}return n}l(ay,"writeKeyPair");class M extends N{static{l(this,"tar_ReceiptFormatError")}kind;member;name="ReceiptFormatError";constructor(t,n,s){super(n),this.kind=t,this.member=s}}const ge=512,Bi=1024*1024*1024,iu=1e6,ru=new Set(["path","size","mtime","atime","ctime"]),ly=new TextDecoder("utf-8",{fatal:!0}),ee=l((e,t)=>new M("corrupt_archive",e,t),"corrupt");function wt(e,t,n){for(let s=t;s<n;s++)if(e[s]!==0)return!1;return!0}l(wt,"isZero");function ou(e){try{return ly.decode(e)}catch{return}}l(ou,"tar_utf8");function Oi(e,t,n,s,i){const r=e.subarray(t,t+n),o=r.indexOf(0),a=o<0?n:o;if(o>=0&&!wt(r,o,n))throw ee(`header at byte ${i}: non-zero bytes after the ${s} field's NUL`);const c=ou(r.subarray(0,a));if(c===void 0)throw ee(`header at byte ${i}: the ${s} field is not UTF-8`);return c}l(Oi,"stringField");function _t(e,t,n,s,i,r){const o=e.subarray(t,t+n);if(wt(o,0,n)){if(r)return 0;throw ee(`header at byte ${i}: the ${s} field is empty`)}let a=0;for(;a<n&&o[a]===32;)a++;const c=a;let u=0;for(;a<n&&o[a]>=48&&o[a]<=55;)u=u*8+(o[a++]-48);let d=a>c&&a<n;for(let h=a;d&&h<n;h++)o[h]!==32&&o[h]!==0&&(d=!1);if(!d)throw ee(`header at byte ${i}: malformed ${s} field ${JSON.stringify(o.toString("latin1"))} (expected octal digits ended by a space or NUL)`);return u}l(_t,"numericField");const cy=Buffer.from("ustar\x0000","latin1"),dy=Buffer.from("ustar  \0","latin1");function au(e){let t;try{t=_t(e,148,8,"checksum",0,!1)}catch{return!1}let n=0;for(let s=0;s<ge;s++)n+=s>=148&&s<156?32:e[s];return t===n}l(au,"checksumOk");function uy(e,t){if(!au(e))throw ee(`bad header checksum at byte ${t} (a member larger than its header claims, or a corrupt archive)`);const n=e.subarray(257,265),s=n.equals(cy);if(!s&&!n.equals(dy))throw ee(`header at byte ${t}: not a ustar or GNU tar header (magic ${JSON.stringify(n.toString("latin1"))})`);let i=Oi(e,0,100,"name",t);_t(e,100,8,"mode",t,!0),_t(e,108,8,"uid",t,!0),_t(e,116,8,"gid",t,!0);const r=_t(e,124,12,"size",t,!1);_t(e,136,12,"mtime",t,!0);const o=String.fromCharCode(e[156]);if(o!=="1"&&o!=="2"&&!wt(e,157,257))throw ee(`header at byte ${t}: a link name on a member that is not a link`);if(Oi(e,265,32,"uname",t),Oi(e,297,32,"gname",t),_t(e,329,8,"devmajor",t,!0),_t(e,337,8,"devminor",t,!0),s){const a=Oi(e,345,155,"prefix",t);if(a!==""&&(i=`${a}/${i}`),!wt(e,500,ge))throw ee(`header at byte ${t}: non-zero bytes in the header's padding`)}else if(!wt(e,345,ge))throw ee(`header at byte ${t}: non-zero bytes after a GNU header's fields (Python reads them as a name prefix)`);return{name:i,typeflag:o,size:r}}l(uy,"parseHeader");function hy(e,t){const n=new Map,s=`pax header at byte ${t}`;let i=0;for(;i<e.length;){const r=e.indexOf(32,i);if(r<0||r===i||r-i>12)throw ee(`${s}: malformed record at offset ${i}`);const o=e.toString("latin1",i,r);if(!/^[1-9][0-9]*$/.test(o))throw ee(`${s}: malformed record length ${JSON.stringify(o)}`);const a=Number(o);if(a<=r-i+1||i+a>e.length||e[i+a-1]!==10)throw ee(`${s}: a record overruns its header or lacks its newline`);const c=e.subarray(r+1,i+a-1),u=c.indexOf(61);if(u<=0)throw ee(`${s}: a record without a key`);const d=c.toString("latin1",0,u),h=ou(c.subarray(u+1));if(!ru.has(d))throw new M(d==="linkpath"||d.startsWith("GNU.sparse")?"unsafe_member":"corrupt_archive",`${s}: pax key ${JSON.stringify(d)} is not accepted in a receipt (only ${[...ru].join(", ")})`);if(h===void 0||/[\x00-\x1f\x7f]/.test(h))throw ee(`${s}: the ${d} value is not plain UTF-8`);if(n.has(d))throw ee(`${s}: key ${d} appears twice`);if(d!=="path"&&!(d==="size"?/^(0|[1-9][0-9]{0,15})$/:/^-?(0|[1-9][0-9]{0,17})(\.[0-9]{1,9})?$/).test(h))throw ee(`${s}: malformed ${d} ${JSON.stringify(h)}`);n.set(d,h),i+=a}return n}l(hy,"parsePax");function fy(e){let t;if(e[148]===128||e[148]===255){t=0;for(let i=149;i<156;i++)t=t*256+e[i];e[148]===255&&(t-=2**56)}else{const i=/^[\0 ]*\+?(?:0o)?([0-7][0-7_]*)/i.exec(e.toString("latin1",148,156));if(i===null)return!1;t=parseInt(i[1].replace(/_/g,""),8)}let n=0,s=0;for(let i=0;i<ge;i++){const r=i>=148&&i<156?32:e[i];n+=r,s+=r>=128?r-256:r}return t===n||t===s}l(fy,"readsAsTarHeader");function py(e,t=Bi){if(e.length<2||e[0]!==31||e[1]!==139)return e;if(e.length>=ge&&fy(e.subarray(0,ge)))throw ee("gzip data whose first 512 bytes also read as a tar header: GNU tar would read another archive from the same bytes");try{return(0,_o.gunzipSync)(e,{maxOutputLength:t})}catch(n){throw n.code==="ERR_BUFFER_TOO_LARGE"||n instanceof RangeError?new M("too_large",`gzip receipt decompresses to more than ${t} bytes`):new M("not_a_receipt",`gzip data is corrupt: ${n.message}`)}}l(py,"maybeGunzip");const my={"\0":"an old-style (v7) regular file",1:"a hard link",2:"a symbolic link",3:"a character device",4:"a block device",6:"a FIFO",7:"a contiguous file",g:"a pax global header",X:"a Solaris extended header",L:"a GNU long-name record",K:"a GNU long-link record",S:"a GNU sparse file",M:"a GNU multi-volume continuation",V:"a GNU volume header"};function*lu(e,t={}){const n=t.maxMembers??iu;if(e.length===0)throw new M("not_a_receipt","empty file");if(e.length<ge)throw new M("not_a_receipt",`not a tar archive (${e.length} bytes, shorter than one header)`);let s=0,i,r=0,o=0;for(;;){if(o+ge>e.length)throw new M("truncated",o===e.length?`the archive ends at byte ${o} without its end-of-archive marker (two zero blocks)`:`archive ends inside a header at byte ${o}`);if(wt(e,o,o+ge)){if(o===0)throw new M("not_a_receipt","empty tar archive");if(i!==void 0)throw new M("truncated",`archive ends after the pax header at byte ${r}, before its member`);if(!wt(e,o,e.length))throw new M("trailing_data",`non-zero bytes after the end-of-archive marker at byte ${o}`);if(o+2*ge>e.length)throw new M("truncated",`a lone zero block at byte ${o} ends the archive (the end-of-archive marker is two)`);return}const a=e.subarray(o,o+ge);if(o===0&&!au(a))throw new M("not_a_receipt","not a tar archive (bad header checksum)");const c=uy(a,o),{typeflag:u}=c;let{name:d,size:h}=c;const f=u==="x"?void 0:d;if(i!==void 0){if(u==="x")throw ee(`two pax headers in a row at byte ${o}`);const S=i.get("path");S!==void 0&&(d=S);const v=i.get("size");v!==void 0&&(h=Number(v))}const y=o+ge,m=e.length-y;if(h>m)throw new M("truncated",`member ${JSON.stringify(d)} declares ${h} bytes but only ${m} remain in the archive`,f);const b=e.subarray(y,y+h),_=y+Math.ceil(h/ge)*ge;if(_>e.length)throw new M("truncated",`member ${JSON.stringify(d)}: archive ends inside its padding`,f);if(!wt(e,y+h,_))throw ee(`member ${JSON.stringify(d)}: non-zero bytes in the padding after its data`,f);if(u==="x"){i=hy(b,o),r=o,o=_;continue}i=void 0;let k;if(u==="0"){if(d.endsWith("/"))throw ee(`regular file ${JSON.stringify(d)} has a directory's name`,d);k="file"}else if(u==="5"){if(h!==0)throw ee(`directory member ${JSON.stringify(d)} has data`,d);k="directory"}else{const S=my[u]??`an unknown member type ${JSON.stringify(u)}`;throw new M("unsafe_member",`member ${JSON.stringify(d)} is ${S}; only regular files and directories are allowed`,d)}if(++s>n)throw new M("too_many_members",`more than ${n} members (at byte ${o})`);o=_,yield{name:d,type:k,data:b}}}l(lu,"tarEntries");function gy(e,t={}){const n=[];for(const s of lu(e,t))n.push(s);return n}l(gy,"readTar");const Ri=1,yy=["agent_id","bernstein_version","blob_digests","created_at","format_version","head_hash","steps"],by=/^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$/;function wy(e){return`${e.toISOString().slice(0,19)}Z`}l(wy,"formatCreatedAt");function _y(e){const t=Date.parse(e);return Number.isFinite(t)?Math.floor(t/1e3):0}l(_y,"createdAtSeconds");function Ay(e){const t={agent_id:e.agent_id,head_hash:e.head_hash,steps:e.steps,bernstein_version:e.bernstein_version,created_at:e.created_at,blob_digests:e.blob_digests,format_version:e.format_version};return Buffer.from(Kn(t),"utf8")}l(Ay,"encodeManifest");function ky(e){const t=new Set,n=[];for(const s of e)for(const i of s)t.has(i)||(t.add(i),n.push(i));return n}l(ky,"blobDigestsOf");function Po(e){const t="manifest.json";let n,s;try{n=le(e),s=ye(n)}catch(u){throw u instanceof Ie?new M("manifest_not_json",`manifest is not JSON: ${u.message}`,t):u instanceof RangeError?new M("manifest_not_json","manifest is too large or too deeply nested",t):u}if(!G(s))throw new M("manifest_invalid","manifest is not a JSON object",t);const i=s.format_version;if(!pt(i))throw new M("manifest_invalid",'manifest has no integer "format_version"',t);if(i!==Ri)throw new M("unknown_format_version",`format_version ${String(i)} is not supported (this reader knows ${Ri})`,t);let r;try{r=ke(s)}catch{r=void 0}if(r!==n)throw new M("manifest_not_canonical","manifest.json is not canonical JSON (sorted keys, no whitespace, no trailing newline)",t);const o=Object.keys(s).filter(u=>!yy.includes(u));if(o.length>0)throw new M("manifest_invalid",`manifest has unknown keys: ${o.join(", ")}`,t);const a=l(u=>{throw new M("manifest_invalid",`manifest ${u}`,t)},"bad");(typeof s.agent_id!="string"||!be(s.agent_id))&&a('"agent_id" is not a safe id'),Pe(s.head_hash)||a('"head_hash" is not 64 lowercase hex digits'),(!pt(s.steps)||typeof s.steps=="bigint"||s.steps<0)&&a('"steps" is not a non-negative integer'),typeof s.bernstein_version!="string"&&a('"bernstein_version" is not a string'),(typeof s.created_at!="string"||!by.test(s.created_at))&&a('"created_at" is not YYYY-MM-DDTHH:MM:SSZ');const c=s.blob_digests;return(!Array.isArray(c)||!c.every(u=>Pe(u)))&&a('"blob_digests" is not a list of SHA-256 hex digests'),new Set(c).size!==c.length&&a('"blob_digests" lists a digest twice'),{agent_id:s.agent_id,head_hash:s.head_hash,steps:s.steps,bernstein_version:s.bernstein_version,created_at:s.created_at,blob_digests:c,format_version:Ri}}l(Po,"parseManifest");const cu=require("events"),H=require("fs"),Do=require("node:events"),du=require("node:stream"),vy=require("node:string_decoder"),Sn=require("path"),Ho=require("assert"),Ut=require("buffer"),uu=require("zlib");var hu=ue.t(uu,2);const Ey=require("node:assert"),Sy=require("node:fs/promises");var $y=Object.defineProperty,xy=l((e,t)=>{for(var n in t)$y(e,n,{get:t[n],enumerable:!0})},"Ur"),fu=typeof process=="object"&&process?process:{stdout:null,stderr:null},Iy=l(e=>!!e&&typeof e=="object"&&(e instanceof Wt||e instanceof du||Cy(e)||By(e)),"Wr"),Cy=l(e=>!!e&&typeof e=="object"&&e instanceof Do.EventEmitter&&typeof e.pipe=="function"&&e.pipe!==du.Writable.prototype.pipe,"Gr"),By=l(e=>!!e&&typeof e=="object"&&e instanceof Do.EventEmitter&&typeof e.write=="function"&&typeof e.end=="function","Zr"),ot=Symbol("EOF"),at=Symbol("maybeEmitEnd"),At=Symbol("emittedEnd"),Ti=Symbol("emittingEnd"),us=Symbol("emittedError"),Ni=Symbol("closed"),pu=Symbol("read"),ji=Symbol("flush"),mu=Symbol("flushChunk"),Ne=Symbol("encoding"),$n=Symbol("decoder"),se=Symbol("flowing"),hs=Symbol("paused"),xn=Symbol("resume"),ie=Symbol("buffer"),he=Symbol("pipes"),re=Symbol("bufferLength"),Qo=Symbol("bufferPush"),Fi=Symbol("bufferShift"),de=Symbol("objectMode"),te=Symbol("destroyed"),Uo=Symbol("error"),Go=Symbol("emitData"),gu=Symbol("emitEnd"),Wo=Symbol("emitEnd2"),ze=Symbol("async"),zo=Symbol("abort"),Mi=Symbol("aborted"),fs=Symbol("signal"),Gt=Symbol("dataListeners"),we=Symbol("discarded"),ps=l(e=>Promise.resolve().then(e),"jt"),Oy=l(e=>e(),"Yr"),Ry=l(e=>e==="end"||e==="finish"||e==="prefinish","Kr"),Ty=l(e=>e instanceof ArrayBuffer||!!e&&typeof e=="object"&&e.constructor&&e.constructor.name==="ArrayBuffer"&&e.byteLength>=0,"$r"),Ny=l(e=>!Buffer.isBuffer(e)&&ArrayBuffer.isView(e),"Vr"),yu=class{static{l(this,"Fe")}src;dest;opts;ondrain;constructor(e,t,n){this.src=e,this.dest=t,this.opts=n,this.ondrain=()=>e[xn](),this.dest.on("drain",this.ondrain)}unpipe(){this.dest.removeListener("drain",this.ondrain)}proxyErrors(e){}end(){this.unpipe(),this.opts.end&&this.dest.end()}},jy=class extends yu{static{l(this,"Li")}unpipe(){this.src.removeListener("error",this.proxyErrors),super.unpipe()}constructor(e,t,n){super(e,t,n),this.proxyErrors=s=>this.dest.emit("error",s),e.on("error",this.proxyErrors)}},Fy=l(e=>!!e.objectMode,"Xr"),My=l(e=>!e.objectMode&&!!e.encoding&&e.encoding!=="buffer","qr"),Wt=class extends Do.EventEmitter{static{l(this,"A")}[se]=!1;[hs]=!1;[he]=[];[ie]=[];[de];[Ne];[ze];[$n];[ot]=!1;[At]=!1;[Ti]=!1;[Ni]=!1;[us]=null;[re]=0;[te]=!1;[fs];[Mi]=!1;[Gt]=0;[we]=!1;writable=!0;readable=!0;constructor(...e){let t=e[0]||{};if(super(),t.objectMode&&typeof t.encoding=="string")throw new TypeError("Encoding and objectMode may not be used together");Fy(t)?(this[de]=!0,this[Ne]=null):My(t)?(this[Ne]=t.encoding,this[de]=!1):(this[de]=!1,this[Ne]=null),this[ze]=!!t.async,this[$n]=this[Ne]?new vy.StringDecoder(this[Ne]):null,t&&t.debugExposeBuffer===!0&&Object.defineProperty(this,"buffer",{get:l(()=>this[ie],"get")}),t&&t.debugExposePipes===!0&&Object.defineProperty(this,"pipes",{get:l(()=>this[he],"get")});let{signal:n}=t;n&&(this[fs]=n,n.aborted?this[zo]():n.addEventListener("abort",()=>this[zo]()))}get bufferLength(){return this[re]}get encoding(){return this[Ne]}set encoding(e){throw new Error("Encoding must be set at instantiation time")}setEncoding(e){throw new Error("Encoding must be set at instantiation time")}get objectMode(){return this[de]}set objectMode(e){throw new Error("objectMode must be set at instantiation time")}get async(){return this[ze]}set async(e){this[ze]=this[ze]||!!e}[zo](){this[Mi]=!0,this.emit("abort",this[fs]?.reason),this.destroy(this[fs]?.reason)}get aborted(){return this[Mi]}set aborted(e){}write(e,t,n){if(this[Mi])return!1;if(this[ot])throw new Error("write after end");if(this[te])return this.emit("error",Object.assign(new Error("Cannot call write after a stream was destroyed"),{code:"ERR_STREAM_DESTROYED"})),!0;typeof t=="function"&&(n=t,t="utf8"),t||(t="utf8");let s=this[ze]?ps:Oy;if(!this[de]&&!Buffer.isBuffer(e)){if(Ny(e))e=Buffer.from(e.buffer,e.byteOffset,e.byteLength);else if(Ty(e))e=Buffer.from(e);else if(typeof e!="string")throw new Error("Non-contiguous data written to non-objectMode stream")}return this[de]?(this[se]&&this[re]!==0&&this[ji](!0),this[se]?this.emit("data",e):this[Qo](e),this[re]!==0&&this.emit("readable"),n&&s(n),this[se]):e.length?(typeof e=="string"&&!(t===this[Ne]&&!this[$n]?.lastNeed)&&(e=Buffer.from(e,t)),Buffer.isBuffer(e)&&this[Ne]&&(e=this[$n].write(e)),this[se]&&this[re]!==0&&this[ji](!0),this[se]?this.emit("data",e):this[Qo](e),this[re]!==0&&this.emit("readable"),n&&s(n),this[se]):(this[re]!==0&&this.emit("readable"),n&&s(n),this[se])}read(e){if(this[te])return null;if(this[we]=!1,this[re]===0||e===0||e&&e>this[re])return this[at](),null;this[de]&&(e=null),this[ie].length>1&&!this[de]&&(this[ie]=[this[Ne]?this[ie].join(""):Buffer.concat(this[ie],this[re])]);let t=this[pu](e||null,this[ie][0]);return this[at](),t}[pu](e,t){if(this[de])this[Fi]();else{let n=t;e===n.length||e===null?this[Fi]():typeof n=="string"?(this[ie][0]=n.slice(e),t=n.slice(0,e),this[re]-=e):(this[ie][0]=n.subarray(e),t=n.subarray(0,e),this[re]-=e)}return this.emit("data",t),!this[ie].length&&!this[ot]&&this.emit("drain"),t}end(e,t,n){return typeof e=="function"&&(n=e,e=void 0),typeof t=="function"&&(n=t,t="utf8"),e!==void 0&&this.write(e,t),n&&this.once("end",n),this[ot]=!0,this.writable=!1,(this[se]||!this[hs])&&this[at](),this}[xn](){this[te]||(!this[Gt]&&!this[he].length&&(this[we]=!0),this[hs]=!1,this[se]=!0,this.emit("resume"),this[ie].length?this[ji]():this[ot]?this[at]():this.emit("drain"))}resume(){return this[xn]()}pause(){this[se]=!1,this[hs]=!0,this[we]=!1}get destroyed(){return this[te]}get flowing(){return this[se]}get paused(){return this[hs]}[Qo](e){this[de]?this[re]+=1:this[re]+=e.length,this[ie].push(e)}[Fi](){return this[de]?this[re]-=1:this[re]-=this[ie][0].length,this[ie].shift()}[ji](e=!1){do;while(this[mu](this[Fi]())&&this[ie].length);!e&&!this[ie].length&&!this[ot]&&this.emit("drain")}[mu](e){return this.emit("data",e),this[se]}pipe(e,t){if(this[te])return e;this[we]=!1;let n=this[At];return t=t||{},e===fu.stdout||e===fu.stderr?t.end=!1:t.end=t.end!==!1,t.proxyErrors=!!t.proxyErrors,n?t.end&&e.end():(this[he].push(t.proxyErrors?new jy(this,e,t):new yu(this,e,t)),this[ze]?ps(()=>this[xn]()):this[xn]()),e}unpipe(e){let t=this[he].find(n=>n.dest===e);t&&(this[he].length===1?(this[se]&&this[Gt]===0&&(this[se]=!1),this[he]=[]):this[he].splice(this[he].indexOf(t),1),t.unpipe())}addListener(e,t){return this.on(e,t)}on(e,t){let n=super.on(e,t);if(e==="data")this[we]=!1,this[Gt]++,!this[he].length&&!this[se]&&this[xn]();else if(e==="readable"&&this[re]!==0)super.emit("readable");else if(Ry(e)&&this[At])super.emit(e),this.removeAllListeners(e);else if(e==="error"&&this[us]){let s=t;this[ze]?ps(()=>s.call(this,this[us])):s.call(this,this[us])}return n}removeListener(e,t){return this.off(e,t)}off(e,t){let n=super.off(e,t);return e==="data"&&(this[Gt]=this.listeners("data").length,this[Gt]===0&&!this[we]&&!this[he].length&&(this[se]=!1)),n}removeAllListeners(e){let t=super.removeAllListeners(e);return(e==="data"||e===void 0)&&(this[Gt]=0,!this[we]&&!this[he].length&&(this[se]=!1)),t}get emittedEnd(){return this[At]}[at](){!this[Ti]&&!this[At]&&!this[te]&&this[ie].length===0&&this[ot]&&(this[Ti]=!0,this.emit("end"),this.emit("prefinish"),this.emit("finish"),this[Ni]&&this.emit("close"),this[Ti]=!1)}emit(e,...t){let n=t[0];if(e!=="error"&&e!=="close"&&e!==te&&this[te])return!1;if(e==="data")return!this[de]&&!n?!1:this[ze]?(ps(()=>this[Go](n)),!0):this[Go](n);if(e==="end")return this[gu]();if(e==="close"){if(this[Ni]=!0,!this[At]&&!this[te])return!1;let i=super.emit("close");return this.removeAllListeners("close"),i}else if(e==="error"){this[us]=n,super.emit(Uo,n);let i=!this[fs]||this.listeners("error").length?super.emit("error",n):!1;return this[at](),i}else if(e==="resume"){let i=super.emit("resume");return this[at](),i}else if(e==="finish"||e==="prefinish"){let i=super.emit(e);return this.removeAllListeners(e),i}let s=super.emit(e,...t);return this[at](),s}[Go](e){for(let n of this[he])n.dest.write(e)===!1&&this.pause();let t=this[we]?!1:super.emit("data",e);return this[at](),t}[gu](){return this[At]?!1:(this[At]=!0,this.readable=!1,this[ze]?(ps(()=>this[Wo]()),!0):this[Wo]())}[Wo](){if(this[$n]){let t=this[$n].end();if(t){for(let n of this[he])n.dest.write(t);this[we]||super.emit("data",t)}}for(let t of this[he])t.end();let e=super.emit("end");return this.removeAllListeners("end"),e}async collect(){let e=Object.assign([],{dataLength:0});this[de]||(e.dataLength=0);let t=this.promise();return this.on("data",n=>{e.push(n),this[de]||(e.dataLength+=n.length)}),await t,e}async concat(){if(this[de])throw new Error("cannot concat in objectMode");let e=await this.collect();return this[Ne]?e.join(""):Buffer.concat(e,e.dataLength)}async promise(){return new Promise((e,t)=>{this.on(te,()=>t(new Error("stream destroyed"))),this.on("error",n=>t(n)),this.on("end",()=>e())})}[Symbol.asyncIterator](){this[we]=!1;let e=!1,t=l(async()=>(this.pause(),e=!0,{value:void 0,done:!0}),"e");return{next:l(()=>{if(e)return t();let n=this.read();if(n!==null)return Promise.resolve({done:!1,value:n});if(this[ot])return t();let s,i,r=l(u=>{this.off("data",o),this.off("end",a),this.off(te,c),t(),i(u)},"h"),o=l(u=>{this.off("error",r),this.off("end",a),this.off(te,c),this.pause(),s({value:u,done:!!this[ot]})},"a"),a=l(()=>{this.off("error",r),this.off("data",o),this.off(te,c),t(),s({done:!0,value:void 0})},"l"),c=l(()=>r(new Error("stream destroyed")),"c");return new Promise((u,d)=>{i=d,s=u,this.once(te,c),this.once("error",r),this.once("end",a),this.once("data",o)})},"next"),throw:t,return:t,[Symbol.asyncIterator](){return this},[Symbol.asyncDispose]:async()=>{}}}[Symbol.iterator](){this[we]=!1;let e=!1,t=l(()=>(this.pause(),this.off(Uo,t),this.off(te,t),this.off("end",t),e=!0,{done:!0,value:void 0}),"e"),n=l(()=>{if(e)return t();let s=this.read();return s===null?t():{done:!1,value:s}},"i");return this.once("end",t),this.once(Uo,t),this.once(te,t),{next:n,throw:t,return:t,[Symbol.iterator](){return this},[Symbol.dispose]:()=>{}}}destroy(e){if(this[te])return e?this.emit("error",e):this.emit(te),this;this[te]=!0,this[we]=!0,this[ie].length=0,this[re]=0;let t=this;return typeof t.close=="function"&&!this[Ni]&&t.close(),e?this.emit("error",e):this.emit(te),this}static get isStream(){return Iy}},Ly=H.writev,kt=Symbol("_autoClose"),je=Symbol("_close"),ms=Symbol("_ended"),Q=Symbol("_fd"),qo=Symbol("_finished"),lt=Symbol("_flags"),Jo=Symbol("_flush"),Ko=Symbol("_handleChunk"),Yo=Symbol("_makeBuf"),gs=Symbol("_mode"),Li=Symbol("_needDrain"),In=Symbol("_onerror"),Cn=Symbol("_onopen"),Vo=Symbol("_onread"),Bn=Symbol("_onwrite"),vt=Symbol("_open"),Fe=Symbol("_path"),Et=Symbol("_pos"),qe=Symbol("_queue"),On=Symbol("_read"),Xo=Symbol("_readSize"),ct=Symbol("_reading"),ys=Symbol("_remain"),Zo=Symbol("_size"),Pi=Symbol("_write"),zt=Symbol("_writing"),Di=Symbol("_defaultFlag"),qt=Symbol("_errored"),ea=class extends Wt{static{l(this,"_t")}[qt]=!1;[Q];[Fe];[Xo];[ct]=!1;[Zo];[ys];[kt];constructor(e,t){if(t=t||{},super(t),this.readable=!0,this.writable=!1,typeof e!="string")throw new TypeError("path must be a string");this[qt]=!1,this[Q]=typeof t.fd=="number"?t.fd:void 0,this[Fe]=e,this[Xo]=t.readSize||16*1024*1024,this[ct]=!1,this[Zo]=typeof t.size=="number"?t.size:1/0,this[ys]=this[Zo],this[kt]=typeof t.autoClose=="boolean"?t.autoClose:!0,typeof this[Q]=="number"?this[On]():this[vt]()}get fd(){return this[Q]}get path(){return this[Fe]}write(){throw new TypeError("this is a readable stream")}end(){throw new TypeError("this is a readable stream")}[vt](){H.open(this[Fe],"r",(e,t)=>this[Cn](e,t))}[Cn](e,t){e?this[In](e):(this[Q]=t,this.emit("open",t),this[On]())}[Yo](){return Buffer.allocUnsafe(Math.min(this[Xo],this[ys]))}[On](){if(!this[ct]){this[ct]=!0;let e=this[Yo]();if(e.length===0)return process.nextTick(()=>this[Vo](null,0,e));H.read(this[Q],e,0,e.length,null,(t,n,s)=>this[Vo](t,n,s))}}[Vo](e,t,n){this[ct]=!1,e?this[In](e):this[Ko](t,n)&&this[On]()}[je](){if(this[kt]&&typeof this[Q]=="number"){let e=this[Q];this[Q]=void 0,H.close(e,t=>t?this.emit("error",t):this.emit("close"))}}[In](e){this[ct]=!0,this[je](),this.emit("error",e)}[Ko](e,t){let n=!1;return this[ys]-=e,e>0&&(n=super.write(e<t.length?t.subarray(0,e):t)),(e===0||this[ys]<=0)&&(n=!1,this[je](),super.end()),n}emit(e,...t){switch(e){case"prefinish":case"finish":return!1;case"drain":return typeof this[Q]=="number"&&this[On](),!1;case"error":return this[qt]?!1:(this[qt]=!0,super.emit(e,...t));default:return super.emit(e,...t)}}},Py=class extends ea{static{l(this,"Be")}[vt](){let e=!0;try{this[Cn](null,H.openSync(this[Fe],"r")),e=!1}finally{e&&this[je]()}}[On](){let e=!0;try{if(!this[ct]){this[ct]=!0;do{let t=this[Yo](),n=t.length===0?0:H.readSync(this[Q],t,0,t.length,null);if(!this[Ko](n,t))break}while(!0);this[ct]=!1}e=!1}finally{e&&this[je]()}}[je](){if(this[kt]&&typeof this[Q]=="number"){let e=this[Q];this[Q]=void 0,H.closeSync(e),this.emit("close")}}},Hi=class extends cu{static{l(this,"et")}readable=!1;writable=!0;[qt]=!1;[zt]=!1;[ms]=!1;[qe]=[];[Li]=!1;[Fe];[gs];[kt];[Q];[Di];[lt];[qo]=!1;[Et];constructor(e,t){t=t||{},super(t),this[Fe]=e,this[Q]=typeof t.fd=="number"?t.fd:void 0,this[gs]=t.mode===void 0?438:t.mode,this[Et]=typeof t.start=="number"?t.start:void 0,this[kt]=typeof t.autoClose=="boolean"?t.autoClose:!0;let n=this[Et]!==void 0?"r+":"w";this[Di]=t.flags===void 0,this[lt]=t.flags===void 0?n:t.flags,this[Q]===void 0&&this[vt]()}emit(e,...t){if(e==="error"){if(this[qt])return!1;this[qt]=!0}return super.emit(e,...t)}get fd(){return this[Q]}get path(){return this[Fe]}[In](e){this[je](),this[zt]=!0,this.emit("error",e)}[vt](){H.open(this[Fe],this[lt],this[gs],(e,t)=>this[Cn](e,t))}[Cn](e,t){this[Di]&&this[lt]==="r+"&&e&&e.code==="ENOENT"?(this[lt]="w",this[vt]()):e?this[In](e):(this[Q]=t,this.emit("open",t),this[zt]||this[Jo]())}end(e,t){return e&&this.write(e,t),this[ms]=!0,!this[zt]&&!this[qe].length&&typeof this[Q]=="number"&&this[Bn](null,0),this}write(e,t){return typeof e=="string"&&(e=Buffer.from(e,t)),this[ms]?(this.emit("error",new Error("write() after end()")),!1):this[Q]===void 0||this[zt]||this[qe].length?(this[qe].push(e),this[Li]=!0,!1):(this[zt]=!0,this[Pi](e),!0)}[Pi](e){H.write(this[Q],e,0,e.length,this[Et],(t,n)=>this[Bn](t,n))}[Bn](e,t){e?this[In](e):(this[Et]!==void 0&&typeof t=="number"&&(this[Et]+=t),this[qe].length?this[Jo]():(this[zt]=!1,this[ms]&&!this[qo]?(this[qo]=!0,this[je](),this.emit("finish")):this[Li]&&(this[Li]=!1,this.emit("drain"))))}[Jo](){if(this[qe].length===0)this[ms]&&this[Bn](null,0);else if(this[qe].length===1)this[Pi](this[qe].pop());else{let e=this[qe];this[qe]=[],Ly(this[Q],e,this[Et],(t,n)=>this[Bn](t,n))}}[je](){if(this[kt]&&typeof this[Q]=="number"){let e=this[Q];this[Q]=void 0,H.close(e,t=>t?this.emit("error",t):this.emit("close"))}}},bu=class extends Hi{static{l(this,"Wt")}[vt](){let e;if(this[Di]&&this[lt]==="r+")try{e=H.openSync(this[Fe],this[lt],this[gs])}catch(t){if(t?.code==="ENOENT")return this[lt]="w",this[vt]();throw t}else e=H.openSync(this[Fe],this[lt],this[gs]);this[Cn](null,e)}[je](){if(this[kt]&&typeof this[Q]=="number"){let e=this[Q];this[Q]=void 0,H.closeSync(e),this.emit("close")}}[Pi](e){let t=!0;try{this[Bn](null,H.writeSync(this[Q],e,0,e.length,this[Et])),t=!1}finally{if(t)try{this[je]()}catch{}}}},Dy=new Map([["C","cwd"],["f","file"],["z","gzip"],["P","preservePaths"],["U","unlink"],["strip-components","strip"],["stripComponents","strip"],["keep-newer","newer"],["keepNewer","newer"],["keep-newer-files","newer"],["keepNewerFiles","newer"],["k","keep"],["keep-existing","keep"],["keepExisting","keep"],["m","noMtime"],["no-mtime","noMtime"],["p","preserveOwner"],["L","follow"],["h","follow"],["onentry","onReadEntry"]]),Hy=l(e=>!!e.sync&&!!e.file,"Fs"),Qy=l(e=>!e.sync&&!!e.file,"ks"),Uy=l(e=>!!e.sync&&!e.file,"Ms"),Gy=l(e=>!e.sync&&!e.file,"vs"),Wy=l(e=>!!e.file,"Bs"),zy=l(e=>Dy.get(e)||e,"tn"),ta=l((e={})=>{if(!e)return{};let t={};for(let[n,s]of Object.entries(e)){let i=zy(n);t[i]=s}return t.chmod===void 0&&t.noChmod===!1&&(t.chmod=!0),delete t.noChmod,t},"se"),bs=l((e,t,n,s,i)=>Object.assign((r=[],o,a)=>{Array.isArray(r)&&(o=r,r={}),typeof o=="function"&&(a=o,o=void 0),o=o?Array.from(o):[];let c=ta(r);if(i?.(c,o),Hy(c)){if(typeof a=="function")throw new TypeError("callback not supported for sync tar functions");return e(c,o)}else if(Qy(c)){let u=t(c,o);return a?u.then(()=>a(),a):u}else if(Uy(c)){if(typeof a=="function")throw new TypeError("callback not supported for sync tar functions");return n(c,o)}else if(Gy(c)){if(typeof a=="function")throw new TypeError("callback only supported with file option");return s(c,o)}throw new Error("impossible options??")},{syncFile:e,asyncFile:t,syncNoFile:n,asyncNoFile:s,validate:i}),"K"),qy=uu.constants||{ZLIB_VERNUM:4736},Je=Object.freeze(Object.assign(Object.create(null),{Z_NO_FLUSH:0,Z_PARTIAL_FLUSH:1,Z_SYNC_FLUSH:2,Z_FULL_FLUSH:3,Z_FINISH:4,Z_BLOCK:5,Z_OK:0,Z_STREAM_END:1,Z_NEED_DICT:2,Z_ERRNO:-1,Z_STREAM_ERROR:-2,Z_DATA_ERROR:-3,Z_MEM_ERROR:-4,Z_BUF_ERROR:-5,Z_VERSION_ERROR:-6,Z_NO_COMPRESSION:0,Z_BEST_SPEED:1,Z_BEST_COMPRESSION:9,Z_DEFAULT_COMPRESSION:-1,Z_FILTERED:1,Z_HUFFMAN_ONLY:2,Z_RLE:3,Z_FIXED:4,Z_DEFAULT_STRATEGY:0,DEFLATE:1,INFLATE:2,GZIP:3,GUNZIP:4,DEFLATERAW:5,INFLATERAW:6,UNZIP:7,BROTLI_DECODE:8,BROTLI_ENCODE:9,Z_MIN_WINDOWBITS:8,Z_MAX_WINDOWBITS:15,Z_DEFAULT_WINDOWBITS:15,Z_MIN_CHUNK:64,Z_MAX_CHUNK:1/0,Z_DEFAULT_CHUNK:16384,Z_MIN_MEMLEVEL:1,Z_MAX_MEMLEVEL:9,Z_DEFAULT_MEMLEVEL:8,Z_MIN_LEVEL:-1,Z_MAX_LEVEL:9,Z_DEFAULT_LEVEL:-1,BROTLI_OPERATION_PROCESS:0,BROTLI_OPERATION_FLUSH:1,BROTLI_OPERATION_FINISH:2,BROTLI_OPERATION_EMIT_METADATA:3,BROTLI_MODE_GENERIC:0,BROTLI_MODE_TEXT:1,BROTLI_MODE_FONT:2,BROTLI_DEFAULT_MODE:0,BROTLI_MIN_QUALITY:0,BROTLI_MAX_QUALITY:11,BROTLI_DEFAULT_QUALITY:11,BROTLI_MIN_WINDOW_BITS:10,BROTLI_MAX_WINDOW_BITS:24,BROTLI_LARGE_MAX_WINDOW_BITS:30,BROTLI_DEFAULT_WINDOW:22,BROTLI_MIN_INPUT_BLOCK_BITS:16,BROTLI_MAX_INPUT_BLOCK_BITS:24,BROTLI_PARAM_MODE:0,BROTLI_PARAM_QUALITY:1,BROTLI_PARAM_LGWIN:2,BROTLI_PARAM_LGBLOCK:3,BROTLI_PARAM_DISABLE_LITERAL_CONTEXT_MODELING:4,BROTLI_PARAM_SIZE_HINT:5,BROTLI_PARAM_LARGE_WINDOW:6,BROTLI_PARAM_NPOSTFIX:7,BROTLI_PARAM_NDIRECT:8,BROTLI_DECODER_RESULT_ERROR:0,BROTLI_DECODER_RESULT_SUCCESS:1,BROTLI_DECODER_RESULT_NEEDS_MORE_INPUT:2,BROTLI_DECODER_RESULT_NEEDS_MORE_OUTPUT:3,BROTLI_DECODER_PARAM_DISABLE_RING_BUFFER_REALLOCATION:0,BROTLI_DECODER_PARAM_LARGE_WINDOW:1,BROTLI_DECODER_NO_ERROR:0,BROTLI_DECODER_SUCCESS:1,BROTLI_DECODER_NEEDS_MORE_INPUT:2,BROTLI_DECODER_NEEDS_MORE_OUTPUT:3,BROTLI_DECODER_ERROR_FORMAT_EXUBERANT_NIBBLE:-1,BROTLI_DECODER_ERROR_FORMAT_RESERVED:-2,BROTLI_DECODER_ERROR_FORMAT_EXUBERANT_META_NIBBLE:-3,BROTLI_DECODER_ERROR_FORMAT_SIMPLE_HUFFMAN_ALPHABET:-4,BROTLI_DECODER_ERROR_FORMAT_SIMPLE_HUFFMAN_SAME:-5,BROTLI_DECODER_ERROR_FORMAT_CL_SPACE:-6,BROTLI_DECODER_ERROR_FORMAT_HUFFMAN_SPACE:-7,BROTLI_DECODER_ERROR_FORMAT_CONTEXT_MAP_REPEAT:-8,BROTLI_DECODER_ERROR_FORMAT_BLOCK_LENGTH_1:-9,BROTLI_DECODER_ERROR_FORMAT_BLOCK_LENGTH_2:-10,BROTLI_DECODER_ERROR_FORMAT_TRANSFORM:-11,BROTLI_DECODER_ERROR_FORMAT_DICTIONARY:-12,BROTLI_DECODER_ERROR_FORMAT_WINDOW_BITS:-13,BROTLI_DECODER_ERROR_FORMAT_PADDING_1:-14,BROTLI_DECODER_ERROR_FORMAT_PADDING_2:-15,BROTLI_DECODER_ERROR_FORMAT_DISTANCE:-16,BROTLI_DECODER_ERROR_DICTIONARY_NOT_SET:-19,BROTLI_DECODER_ERROR_INVALID_ARGUMENTS:-20,BROTLI_DECODER_ERROR_ALLOC_CONTEXT_MODES:-21,BROTLI_DECODER_ERROR_ALLOC_TREE_GROUPS:-22,BROTLI_DECODER_ERROR_ALLOC_CONTEXT_MAP:-25,BROTLI_DECODER_ERROR_ALLOC_RING_BUFFER_1:-26,BROTLI_DECODER_ERROR_ALLOC_RING_BUFFER_2:-27,BROTLI_DECODER_ERROR_ALLOC_BLOCK_TYPE_TREES:-30,BROTLI_DECODER_ERROR_UNREACHABLE:-31},qy)),Jy=Ut.Buffer.concat,wu=Object.getOwnPropertyDescriptor(Ut.Buffer,"concat"),Ky=l(e=>e,"nn"),na=wu?.writable===!0||wu?.set!==void 0?e=>{Ut.Buffer.concat=e?Ky:Jy}:e=>{},Jt=Symbol("_superWrite"),Qi=class extends Error{static{l(this,"Gt")}code;errno;constructor(e,t){super("zlib: "+e.message,{cause:e}),this.code=e.code,this.errno=e.errno,this.code||(this.code="ZLIB_ERROR"),this.message="zlib: "+e.message,Error.captureStackTrace(this,t??this.constructor)}get name(){return"ZlibError"}},sa=Symbol("flushFlag"),ia=class extends Wt{static{l(this,"re")}#e=!1;#n=!1;#s;#r;#i;#t;#o;get sawError(){return this.#e}get handle(){return this.#t}get flushFlag(){return this.#s}constructor(e,t){if(!e||typeof e!="object")throw new TypeError("invalid options for ZlibBase constructor");if(super(e),this.#s=e.flush??0,this.#r=e.finishFlush??0,this.#i=e.fullFlushFlag??0,typeof hu[t]!="function")throw new TypeError("Compression method not supported: "+t);try{this.#t=new hu[t](e)}catch(n){throw new Qi(n,this.constructor)}this.#o=n=>{this.#e||(this.#e=!0,this.close(),this.emit("error",n))},this.#t?.on("error",n=>this.#o(new Qi(n))),this.once("end",()=>this.close)}close(){this.#t&&(this.#t.close(),this.#t=void 0,this.emit("close"))}reset(){if(!this.#e)return Ho(this.#t,"zlib binding closed"),this.#t.reset?.()}flush(e){this.ended||(typeof e!="number"&&(e=this.#i),this.write(Object.assign(Ut.Buffer.alloc(0),{[sa]:e})))}end(e,t,n){return typeof e=="function"&&(n=e,t=void 0,e=void 0),typeof t=="function"&&(n=t,t=void 0),e&&(t?this.write(e,t):this.write(e)),this.flush(this.#r),this.#n=!0,super.end(n)}get ended(){return this.#n}[Jt](e){return super.write(e)}write(e,t,n){if(typeof t=="function"&&(n=t,t="utf8"),typeof e=="string"&&(e=Ut.Buffer.from(e,t)),this.#e)return;Ho(this.#t,"zlib binding closed");let s=this.#t._handle,i=s.close;s.close=()=>{};let r=this.#t.close;this.#t.close=()=>{},na(!0);let o;try{let c=typeof e[sa]=="number"?e[sa]:this.#s;o=this.#t._processChunk(e,c),na(!1)}catch(c){na(!1),this.#o(new Qi(c,this.write))}finally{this.#t&&(this.#t._handle=s,s.close=i,this.#t.close=r,this.#t.removeAllListeners("error"))}this.#t&&this.#t.on("error",c=>this.#o(new Qi(c,this.write)));let a;if(o)if(Array.isArray(o)&&o.length>0){let c=o[0];a=this[Jt](Ut.Buffer.from(c));for(let u=1;u<o.length;u++)a=this[Jt](o[u])}else a=this[Jt](Ut.Buffer.from(o));return n&&n(),a}},_u=class extends ia{static{l(this,"Pe")}#e;#n;constructor(e,t){e=e||{},e.flush=e.flush||Je.Z_NO_FLUSH,e.finishFlush=e.finishFlush||Je.Z_FINISH,e.fullFlushFlag=Je.Z_FULL_FLUSH,super(e,t),this.#e=e.level,this.#n=e.strategy}params(e,t){if(!this.sawError){if(!this.handle)throw new Error("cannot switch params when binding is closed");if(!this.handle.params)throw new Error("not supported in this implementation");if(this.#e!==e||this.#n!==t){this.flush(Je.Z_SYNC_FLUSH),Ho(this.handle,"zlib binding closed");let n=this.handle.flush;this.handle.flush=(s,i)=>{typeof s=="function"&&(i=s,s=this.flushFlag),this.flush(s),i?.()};try{this.handle.params(e,t)}finally{this.handle.flush=n}this.handle&&(this.#e=e,this.#n=t)}}}},Yy=class extends _u{static{l(this,"ze")}#e;constructor(e){super(e,"Gzip"),this.#e=e&&!!e.portable}[Jt](e){return this.#e?(this.#e=!1,e[9]=255,super[Jt](e)):super[Jt](e)}},Vy=class extends _u{static{l(this,"Ue")}constructor(e){super(e,"Unzip")}},Au=class extends ia{static{l(this,"He")}constructor(e,t){e=e||{},e.flush=e.flush||Je.BROTLI_OPERATION_PROCESS,e.finishFlush=e.finishFlush||Je.BROTLI_OPERATION_FINISH,e.fullFlushFlag=Je.BROTLI_OPERATION_FLUSH,super(e,t)}},Xy=class extends Au{static{l(this,"We")}constructor(e){super(e,"BrotliCompress")}},Zy=class extends Au{static{l(this,"Ge")}constructor(e){super(e,"BrotliDecompress")}},ku=class extends ia{static{l(this,"Ze")}constructor(e,t){e=e||{},e.flush=e.flush||Je.ZSTD_e_continue,e.finishFlush=e.finishFlush||Je.ZSTD_e_end,e.fullFlushFlag=Je.ZSTD_e_flush,super(e,t)}},eb=class extends ku{static{l(this,"Ye")}constructor(e){super(e,"ZstdCompress")}},tb=class extends ku{static{l(this,"Ke")}constructor(e){super(e,"ZstdDecompress")}},nb=l((e,t)=>{if(Number.isSafeInteger(e))e<0?ib(e,t):sb(e,t);else throw Error("cannot encode number outside of javascript safe integer range");return t},"Us"),sb=l((e,t)=>{t[0]=128;for(var n=t.length;n>1;n--)t[n-1]=e&255,e=Math.floor(e/256)},"hn"),ib=l((e,t)=>{t[0]=255;var n=!1;e=e*-1;for(var s=t.length;s>1;s--){var i=e&255;e=Math.floor(e/256),n?t[s-1]=vu(i):i===0?t[s-1]=0:(n=!0,t[s-1]=Eu(i))}},"an"),rb=l(e=>{let t=e[0],n=t===128?ab(e.subarray(1,e.length)):t===255?ob(e):null;if(n===null)throw Error("invalid base256 encoding");if(!Number.isSafeInteger(n))throw Error("parsed number outside of javascript safe integer range");return n},"Hs"),ob=l(e=>{for(var t=e.length,n=0,s=!1,i=t-1;i>-1;i--){var r=Number(e[i]),o;s?o=vu(r):r===0?o=r:(s=!0,o=Eu(r)),o!==0&&(n-=o*Math.pow(256,t-i-1))}return n},"ln"),ab=l(e=>{for(var t=e.length,n=0,s=t-1;s>-1;s--){var i=Number(e[s]);i!==0&&(n+=i*Math.pow(256,t-s-1))}return n},"cn"),vu=l(e=>(255^e)&255,"Ws"),Eu=l(e=>(255^e)+1&255,"Gs"),lb={};xy(lb,{code:l(()=>ra,"code"),isCode:l(()=>Ui,"isCode"),isName:l(()=>cb,"isName"),name:l(()=>Gi,"name"),normalFsTypes:l(()=>Su,"normalFsTypes")});var Ui=l(e=>Gi.has(e),"ne"),cb=l(e=>ra.has(e),"dn"),Su=new Set(["0","","1","2","3","4","5","6","7","D"]),Gi=new Map([["0","File"],["","OldFile"],["1","Link"],["2","SymbolicLink"],["3","CharacterDevice"],["4","BlockDevice"],["5","Directory"],["6","FIFO"],["7","ContiguousFile"],["g","GlobalExtendedHeader"],["x","ExtendedHeader"],["A","SolarisACL"],["D","GNUDumpDir"],["I","Inode"],["K","NextFileHasLongLinkpath"],["L","NextFileHasLongPath"],["M","ContinuationFile"],["N","OldGnuLongPath"],["S","SparseFile"],["V","TapeVolumeHeader"],["X","OldExtendedHeader"]]),ra=new Map(Array.from(Gi).map(e=>[e[1],e[0]])),db=l(e=>e===void 0||e<0?void 0:e,"mn"),St=class{static{l(this,"F")}cksumValid=!1;needPax=!1;nullBlock=!1;block;path;mode;uid;gid;size;cksum;#e="Unsupported";linkpath;uname;gname;devmaj=0;devmin=0;atime;ctime;mtime;charset;comment;constructor(e,t=0,n,s){Buffer.isBuffer(e)?this.decode(e,t||0,n,s):e&&this.#n(e)}decode(e,t,n,s){if(t||(t=0),!e||!(e.length>=t+512))throw new Error("need 512 bytes for header");let i=Kt(e,t+156,1),r=Su.has(i),o=r?n:void 0,a=r?s:void 0;if(this.path=o?.path??Kt(e,t,100),this.mode=o?.mode??a?.mode??$t(e,t+100,8),this.uid=o?.uid??a?.uid??$t(e,t+108,8),this.gid=o?.gid??a?.gid??$t(e,t+116,8),this.size=db(o?.size??a?.size??$t(e,t+124,12)),this.mtime=o?.mtime??a?.mtime??oa(e,t+136,12),this.cksum=$t(e,t+148,12),a&&this.#n(a,!0),o&&this.#n(o),Ui(i)&&(this.#e=i||"0"),this.#e==="0"&&this.path.slice(-1)==="/"&&(this.#e="5"),this.#e==="5"&&(this.size=0),this.linkpath=Kt(e,t+157,100),e.subarray(t+257,t+265).toString()==="ustar\x0000")if(this.uname=o?.uname??a?.uname??Kt(e,t+265,32),this.gname=o?.gname??a?.gname??Kt(e,t+297,32),this.devmaj=o?.devmaj??a?.devmaj??$t(e,t+329,8)??0,this.devmin=o?.devmin??a?.devmin??$t(e,t+337,8)??0,e[t+475]!==0){let u=Kt(e,t+345,155);this.path=u+"/"+this.path}else{let u=Kt(e,t+345,130);u&&(this.path=u+"/"+this.path),this.atime=n?.atime??s?.atime??oa(e,t+476,12),this.ctime=n?.ctime??s?.ctime??oa(e,t+488,12)}let c=256;for(let u=t;u<t+148;u++)c+=e[u];for(let u=t+156;u<t+512;u++)c+=e[u];this.cksumValid=c===this.cksum,this.cksum===void 0&&c===256&&(this.nullBlock=!0)}#n(e,t=!1){Object.assign(this,Object.fromEntries(Object.entries(e).filter(([n,s])=>!(s==null||n==="size"&&Number(s)<0||n==="path"&&t||n==="linkpath"&&t||n==="global"))))}encode(e,t=0){if(e||(e=this.block=Buffer.alloc(512)),this.#e==="Unsupported"&&(this.#e="0"),!(e.length>=t+512))throw new Error("need 512 bytes for header");let n=this.ctime||this.atime?130:155,s=ub(this.path||"",n),i=s[0],r=s[1];this.needPax=!!s[2],this.needPax=Yt(e,t,100,i)||this.needPax,this.needPax=xt(e,t+100,8,this.mode)||this.needPax,this.needPax=xt(e,t+108,8,this.uid)||this.needPax,this.needPax=xt(e,t+116,8,this.gid)||this.needPax,this.needPax=xt(e,t+124,12,this.size)||this.needPax,this.needPax=aa(e,t+136,12,this.mtime)||this.needPax,e[t+156]=Number(this.#e.codePointAt(0)),this.needPax=Yt(e,t+157,100,this.linkpath)||this.needPax,e.write("ustar\x0000",t+257,8),this.needPax=Yt(e,t+265,32,this.uname)||this.needPax,this.needPax=Yt(e,t+297,32,this.gname)||this.needPax,this.needPax=xt(e,t+329,8,this.devmaj)||this.needPax,this.needPax=xt(e,t+337,8,this.devmin)||this.needPax,this.needPax=Yt(e,t+345,n,r)||this.needPax,e[t+475]!==0?this.needPax=Yt(e,t+345,155,r)||this.needPax:(this.needPax=Yt(e,t+345,130,r)||this.needPax,this.needPax=aa(e,t+476,12,this.atime)||this.needPax,this.needPax=aa(e,t+488,12,this.ctime)||this.needPax);let o=256;for(let a=t;a<t+148;a++)o+=e[a];for(let a=t+156;a<t+512;a++)o+=e[a];return this.cksum=o,xt(e,t+148,8,this.cksum),this.cksumValid=!0,this.needPax}get type(){return this.#e==="Unsupported"?this.#e:Gi.get(this.#e)}get typeKey(){return this.#e}set type(e){let t=String(ra.get(e));if(Ui(t)||t==="Unsupported")this.#e=t;else if(Ui(e))this.#e=e;else throw new TypeError("invalid entry type: "+e)}},ub=l((e,t)=>{let n=e,s="",i,r=F.posix.parse(e).root||".";if(Buffer.byteLength(n)<100)i=[n,s,!1];else{s=F.posix.dirname(n),n=F.posix.basename(n);do Buffer.byteLength(n)<=100&&Buffer.byteLength(s)<=t?i=[n,s,!1]:Buffer.byteLength(n)>100&&Buffer.byteLength(s)<=t?i=[n.slice(0,99),s,!0]:(n=F.posix.join(F.posix.basename(s),n),s=F.posix.dirname(s));while(s!==r&&i===void 0);i||(i=[e.slice(0,99),"",!0])}return i},"un"),Kt=l((e,t,n)=>e.subarray(t,t+n).toString("utf8").replace(/\0.*/,""),"xt"),oa=l((e,t,n)=>hb($t(e,t,n)),"Wi"),hb=l(e=>e===void 0?void 0:new Date(e*1e3),"pn"),$t=l((e,t,n)=>Number(e[t])&128?rb(e.subarray(t,t+n)):pb(e,t,n),"lt"),fb=l(e=>isNaN(e)?void 0:e,"En"),pb=l((e,t,n)=>fb(parseInt(e.subarray(t,t+n).toString("utf8").replace(/\0.*$/,"").trim(),8)),"wn"),mb={12:8589934591,8:2097151},xt=l((e,t,n,s)=>s===void 0?!1:s>mb[n]||s<0?(nb(s,e.subarray(t,t+n)),!0):(gb(e,t,n,s),!1),"ct"),gb=l((e,t,n,s)=>e.write(yb(s,n),t,n,"ascii"),"yn"),yb=l((e,t)=>bb(Math.floor(e).toString(8),t),"Rn"),bb=l((e,t)=>(e.length===t-1?e:new Array(t-e.length-1).join("0")+e+" ")+"\0","gn"),aa=l((e,t,n,s)=>s===void 0?!1:xt(e,t,n,s.getTime()/1e3),"Gi"),wb=new Array(156).join("\0"),Yt=l((e,t,n,s)=>s===void 0?!1:(e.write(s+wb,t,n,"utf8"),s.length!==Buffer.byteLength(s)||s.length>n),"Lt"),_b=/^(?:0|[1-9]\d*)$/,Wi=class ap{static{l(this,"s")}atime;mtime;ctime;charset;comment;gid;uid;gname;uname;linkpath;dev;ino;nlink;path;size;mode;global;constructor(t,n=!1){this.atime=t.atime,this.charset=t.charset,this.comment=t.comment,this.ctime=t.ctime,this.dev=t.dev,this.gid=t.gid,this.global=n,this.gname=t.gname,this.ino=t.ino,this.linkpath=t.linkpath,this.mtime=t.mtime,this.nlink=t.nlink,this.path=t.path,this.size=t.size,this.uid=t.uid,this.uname=t.uname}encode(){let t=this.encodeBody();if(t==="")return Buffer.allocUnsafe(0);let n=Buffer.byteLength(t),s=512*Math.ceil(1+n/512),i=Buffer.allocUnsafe(s);for(let r=0;r<512;r++)i[r]=0;new St({path:("PaxHeader/"+(0,F.basename)(this.path??"")).slice(0,99),mode:this.mode||420,uid:this.uid,gid:this.gid,size:n,mtime:this.mtime,type:this.global?"GlobalExtendedHeader":"ExtendedHeader",linkpath:"",uname:this.uname||"",gname:this.gname||"",devmaj:0,devmin:0,atime:this.atime,ctime:this.ctime}).encode(i),i.write(t,512,n,"utf8");for(let r=n+512;r<i.length;r++)i[r]=0;return i}encodeBody(){return this.encodeField("path")+this.encodeField("ctime")+this.encodeField("atime")+this.encodeField("dev")+this.encodeField("ino")+this.encodeField("nlink")+this.encodeField("charset")+this.encodeField("comment")+this.encodeField("gid")+this.encodeField("gname")+this.encodeField("linkpath")+this.encodeField("mtime")+this.encodeField("size")+this.encodeField("uid")+this.encodeField("uname")}encodeField(t){if(this[t]===void 0)return"";let n=this[t],s=n instanceof Date?n.getTime()/1e3:n,i=" "+(t==="dev"||t==="ino"||t==="nlink"?"SCHILY.":"")+t+"="+s+`
`,r=Buffer.byteLength(i),o=Math.floor(Math.log(r)/Math.log(10))+1;return r+o>=Math.pow(10,o)&&(o+=1),o+r+i}static parse(t,n,s=!1){return new ap(Ab(kb(t),n),s)}},Ab=l((e,t)=>t?Object.assign({},t,e):e,"Tn"),kb=l(e=>e.replace(/\n$/,"").split(`
`).reduce(vb,Object.create(null)),"xn"),vb=l((e,t)=>{let n=parseInt(t,10);if(n!==Buffer.byteLength(t)+1)return e;t=t.slice((n+" ").length);let s=t.split("="),i=s.shift();if(!i)return e;let r=i.replace(/^SCHILY\.(dev|ino|nlink)/,"$1"),o=s.join("=").replace(/\0.*/,"");switch(r){case"path":case"linkpath":case"type":case"charset":case"comment":case"gname":case"uname":e[r]=o;break;case"ctime":case"atime":case"mtime":e[r]=new Date(Number(o)*1e3);break;case"size":if(!_b.test(o.trim()))break;let a=+o;if(!Number.isSafeInteger(a))break;e[r]=a;break;case"gid":case"uid":case"dev":case"ino":case"nlink":case"mode":e[r]=+o;break}return e},"Ln"),Eb=process.env.TESTING_TAR_FAKE_PLATFORM||process.platform,L=Eb!=="win32"?e=>String(e):e=>String(e).replaceAll(/\\/g,"/"),$u=class extends Wt{static{l(this,"Ve")}extended;globalExtended;header;startBlockSize;blockRemain;remain;type;meta=!1;ignore=!1;path;mode;uid;gid;uname;gname;size=0;mtime;atime;ctime;linkpath;dev;ino;nlink;invalid=!1;absolute;unsupported=!1;constructor(e,t,n){switch(super({}),this.pause(),this.extended=t,this.globalExtended=n,this.header=e,this.remain=e.size??0,this.startBlockSize=512*Math.ceil(this.remain/512),this.blockRemain=this.startBlockSize,this.type=e.type,this.type){case"File":case"OldFile":case"Link":case"SymbolicLink":case"CharacterDevice":case"BlockDevice":case"Directory":case"FIFO":case"ContiguousFile":case"GNUDumpDir":break;case"NextFileHasLongLinkpath":case"NextFileHasLongPath":case"OldGnuLongPath":case"GlobalExtendedHeader":case"ExtendedHeader":case"OldExtendedHeader":this.meta=!0;break;default:this.ignore=!0}if(!e.path)throw new Error("no path provided for tar.ReadEntry");this.path=L(e.path),this.mode=e.mode,this.mode&&(this.mode=this.mode&4095),this.uid=e.uid,this.gid=e.gid,this.uname=e.uname,this.gname=e.gname,this.size=this.remain,this.mtime=e.mtime,this.atime=e.atime,this.ctime=e.ctime,this.linkpath=e.linkpath?L(e.linkpath):void 0,this.uname=e.uname,this.gname=e.gname,t&&this.#e(t),n&&this.#e(n,!0)}write(e){let t=e.length;if(t>this.blockRemain)throw new Error("writing more to entry than is appropriate");let n=this.remain,s=this.blockRemain;return this.remain=Math.max(0,n-t),this.blockRemain=Math.max(0,s-t),this.ignore?!0:n>=t?super.write(e):super.write(e.subarray(0,n))}#e(e,t=!1){e.path&&(e.path=L(e.path)),e.linkpath&&(e.linkpath=L(e.linkpath)),Object.assign(this,Object.fromEntries(Object.entries(e).filter(([n,s])=>!(s==null||n==="path"&&t))))}},zi=l((e,t,n,s={})=>{e.file&&(s.file=e.file),e.cwd&&(s.cwd=e.cwd),s.code=n instanceof Error&&n.code||t,s.tarCode=t,!e.strict&&s.recoverable!==!1?(n instanceof Error&&(s=Object.assign(n,s),n=n.message),e.emit("warn",t,n,s)):n instanceof Error?e.emit("error",Object.assign(n,s)):e.emit("error",Object.assign(new Error(`${t}: ${n}`),s))},"Dt"),Sb=1024*1024,la=Buffer.from([31,139]),ca=Buffer.from([40,181,47,253]),$b=Math.max(la.length,ca.length),Ee=Symbol("state"),Vt=Symbol("writeEntry"),dt=Symbol("readEntry"),da=Symbol("nextEntry"),xu=Symbol("processEntry"),Ke=Symbol("extendedHeader"),ws=Symbol("globalExtendedHeader"),It=Symbol("meta"),Iu=Symbol("emitMeta"),z=Symbol("buffer"),ut=Symbol("queue"),Ct=Symbol("ended"),ua=Symbol("emittedEnd"),Xt=Symbol("emit"),Y=Symbol("unzip"),qi=Symbol("consumeChunk"),Ji=Symbol("consumeChunkSub"),ha=Symbol("consumeBody"),Cu=Symbol("consumeMeta"),Bu=Symbol("consumeHeader"),_s=Symbol("consuming"),fa=Symbol("bufferConcat"),Ki=Symbol("maybeEnd"),Rn=Symbol("writing"),Ye=Symbol("aborted"),Yi=Symbol("onDone"),Zt=Symbol("sawValidEntry"),Vi=Symbol("sawNullBlock"),Xi=Symbol("sawEOF"),Ou=Symbol("closeStream"),xb=1e3,As=Symbol("compressedBytesRead"),pa=Symbol("decompressedBytesRead"),Ru=Symbol("checkDecompressionRatio"),Ib=l(()=>!0,"Fn"),ks=class extends cu.EventEmitter{static{l(this,"rt")}file;strict;maxMetaEntrySize;filter;brotli;zstd;maxDecompressionRatio;writable=!0;readable=!1;[ut]=[];[z];[dt];[Vt];[Ee]="begin";[It]="";[Ke];[ws];[Ct]=!1;[Y];[Ye]=!1;[Zt];[Vi]=!1;[Xi]=!1;[Rn]=!1;[_s]=!1;[ua]=!1;[As]=0;[pa]=0;constructor(e={}){super(),this.file=e.file||"",this.on(Yi,()=>{(this[Ee]==="begin"||this[Zt]===!1)&&this.warn("TAR_BAD_ARCHIVE","Unrecognized archive format")}),e.ondone?this.on(Yi,e.ondone):this.on(Yi,()=>{this.emit("prefinish"),this.emit("finish"),this.emit("end")}),this.strict=!!e.strict,this.maxDecompressionRatio=typeof e.maxDecompressionRatio=="number"?e.maxDecompressionRatio:xb,this.maxMetaEntrySize=e.maxMetaEntrySize||Sb,this.filter=typeof e.filter=="function"?e.filter:Ib;let t=e.file&&(e.file.endsWith(".tar.br")||e.file.endsWith(".tbr"));this.brotli=!(e.gzip||e.zstd)&&e.brotli!==void 0?e.brotli:t?void 0:!1;let n=e.file&&(e.file.endsWith(".tar.zst")||e.file.endsWith(".tzst"));this.zstd=!(e.gzip||e.brotli)&&e.zstd!==void 0?e.zstd:n?!0:void 0,this.on("end",()=>this[Ou]()),typeof e.onwarn=="function"&&this.on("warn",e.onwarn),typeof e.onReadEntry=="function"&&this.on("entry",e.onReadEntry)}warn(e,t,n={}){zi(this,e,t,n)}[Bu](e,t){this[Zt]===void 0&&(this[Zt]=!1);let n;try{n=new St(e,t,this[Ke],this[ws])}catch(s){return this.warn("TAR_ENTRY_INVALID",s)}if(n.nullBlock)this[Vi]?(this[Xi]=!0,this[Ee]==="begin"&&(this[Ee]="header"),this[Xt]("eof")):(this[Vi]=!0,this[Xt]("nullBlock"));else if(this[Vi]=!1,!n.cksumValid)this.warn("TAR_ENTRY_INVALID","checksum failure",{header:n});else if(!n.path)this.warn("TAR_ENTRY_INVALID","path is required",{header:n});else{let s=n.type;if(/^(Symbolic)?Link$/.test(s)&&!n.linkpath)this.warn("TAR_ENTRY_INVALID","linkpath required",{header:n});else if(!/^(Symbolic)?Link$/.test(s)&&!/^(Global)?ExtendedHeader$/.test(s)&&n.linkpath)this.warn("TAR_ENTRY_INVALID","linkpath forbidden",{header:n});else{let i=this[Vt]=new $u(n,this[Ke],this[ws]);if(!this[Zt])if(i.remain){let r=l(()=>{i.invalid||(this[Zt]=!0)},"o");i.on("end",r)}else this[Zt]=!0;i.meta?i.size>this.maxMetaEntrySize?(i.ignore=!0,this[Xt]("ignoredEntry",i),this[Ee]="ignore",i.resume()):i.size>0&&(this[It]="",i.on("data",r=>this[It]+=r),this[Ee]="meta"):(this[Ke]=void 0,i.ignore=i.ignore||!this.filter(i.path,i),i.ignore?(this[Xt]("ignoredEntry",i),this[Ee]=i.remain?"ignore":"header",i.resume()):(i.remain?this[Ee]="body":(this[Ee]="header",i.end()),this[dt]?this[ut].push(i):(this[ut].push(i),this[da]())))}}}[Ou](){queueMicrotask(()=>this.emit("close"))}[xu](e){let t=!0;if(!e)this[dt]=void 0,t=!1;else if(Array.isArray(e)){let[n,...s]=e;this.emit(n,...s)}else this[dt]=e,this.emit("entry",e),e.emittedEnd||(e.on("end",()=>this[da]()),t=!1);return t}[da](){do;while(this[xu](this[ut].shift()));if(this[ut].length===0){let e=this[dt];!e||e.flowing||e.size===e.remain?this[Rn]||this.emit("drain"):e.once("drain",()=>this.emit("drain"))}}[ha](e,t){let n=this[Vt];if(!n)throw new Error("attempt to consume body without entry??");let s=n.blockRemain??0,i=s>=e.length&&t===0?e:e.subarray(t,t+s);return n.write(i),n.blockRemain||(this[Ee]="header",this[Vt]=void 0,n.end()),i.length}[Cu](e,t){let n=this[Vt],s=this[ha](e,t);return!this[Vt]&&n&&this[Iu](n),s}[Xt](e,t,n){this[ut].length===0&&!this[dt]?this.emit(e,t,n):this[ut].push([e,t,n])}[Iu](e){switch(this[Xt]("meta",this[It]),e.type){case"ExtendedHeader":case"OldExtendedHeader":this[Ke]=Wi.parse(this[It],this[Ke],!1);break;case"GlobalExtendedHeader":this[ws]=Wi.parse(this[It],this[ws],!0);break;case"NextFileHasLongPath":case"OldGnuLongPath":{let t=this[Ke]??Object.create(null);this[Ke]=t,t.path=this[It].replace(/\0.*/,"");break}case"NextFileHasLongLinkpath":{let t=this[Ke]||Object.create(null);this[Ke]=t,t.linkpath=this[It].replace(/\0.*/,"");break}default:throw new Error("unknown meta: "+e.type)}}abort(e){if(!this[Ye]){if(this[Y]){let t=this[Y];t.write=()=>!0,t.end=()=>t,t.emit=()=>!1,t.destroy?.()}this[Ye]=!0,this.emit("abort",e),this.warn("TAR_ABORT",e,{recoverable:!1})}}[Ru](e){this[pa]+=e.length;let t=this[pa]/this[As];return t>this.maxDecompressionRatio?(this.abort(new Error(`max decompression ratio exceeded: ${t.toFixed(2)} > ${this.maxDecompressionRatio}`)),!1):!0}write(e,t,n){if(typeof t=="function"&&(n=t,t=void 0),typeof e=="string"&&(e=Buffer.from(e,typeof t=="string"?t:"utf8")),this[Ye])return n?.(),!1;if((this[Y]===void 0||this.brotli===void 0&&this[Y]===!1)&&e){if(this[z]&&(e=Buffer.concat([this[z],e]),this[z]=void 0),e.length<$b)return this[z]=e,n?.(),!0;for(let o=0;this[Y]===void 0&&o<la.length;o++)e[o]!==la[o]&&(this[Y]=!1);let i=!1;if(this[Y]===!1&&this.zstd!==!1){i=!0;for(let o=0;o<ca.length;o++)if(e[o]!==ca[o]){i=!1;break}}let r=this.brotli===void 0&&!i;if(this[Y]===!1&&r)if(e.length<512)if(this[Ct])this.brotli=!0;else return this[z]=e,n?.(),!0;else try{new St(e.subarray(0,512)),this.brotli=!1}catch{this.brotli=!0}if(this[Y]===void 0||this[Y]===!1&&(this.brotli||i)){let o=this[Ct];this[Ct]=!1,this[Y]=this[Y]===void 0?new Vy({}):i?new tb({}):new Zy({}),this[Y].on("data",c=>{this[Ru](c)&&this[qi](c)}),this[Y].on("error",c=>{this[Ye]||this.abort(c)}),this[Y].on("end",()=>{this[Ct]=!0,this[qi]()}),this[Rn]=!0,this[As]+=e.length;let a=!!this[Y][o?"end":"write"](e);return this[Rn]=!1,n?.(),a}}this[Rn]=!0,this[Y]?(this[As]+=e.length,this[Y].write(e)):this[qi](e),this[Rn]=!1;let s=this[ut].length>0?!1:this[dt]?this[dt].flowing:!0;return!s&&this[ut].length===0&&this[dt]?.once("drain",()=>this.emit("drain")),n?.(),s}[fa](e){e&&!this[Ye]&&(this[z]=this[z]?Buffer.concat([this[z],e]):e)}[Ki](){if(this[Ct]&&!this[ua]&&!this[Ye]&&!this[_s]){this[ua]=!0;let e=this[Vt];if(e?.blockRemain){let t=this[z]?this[z].length:0;this.warn("TAR_BAD_ARCHIVE",`Truncated input (needed ${e.blockRemain} more bytes, only ${t} available)`,{entry:e}),this[z]&&e.write(this[z]),e.end()}this[Xt](Yi)}}[qi](e){if(this[_s]&&e)this[fa](e);else if(!e&&!this[z])this[Ki]();else if(e){if(this[_s]=!0,this[z]){this[fa](e);let t=this[z];this[z]=void 0,this[Ji](t)}else this[Ji](e);for(;this[z]&&this[z]?.length>=512&&!this[Ye]&&!this[Xi];){let t=this[z];this[z]=void 0,this[Ji](t)}this[_s]=!1}(!this[z]||this[Ct])&&this[Ki]()}[Ji](e){let t=0,n=e.length;for(;t+512<=n&&!this[Ye]&&!this[Xi];)switch(this[Ee]){case"begin":case"header":this[Bu](e,t),t+=512;break;case"ignore":case"body":t+=this[ha](e,t);break;case"meta":t+=this[Cu](e,t);break;default:throw new Error("invalid state: "+this[Ee])}t<n&&(this[z]=this[z]?Buffer.concat([e.subarray(t),this[z]]):e.subarray(t))}end(e,t,n){return typeof e=="function"&&(n=e,t=void 0,e=void 0),typeof t=="function"&&(n=t,t=void 0),typeof e=="string"&&(e=Buffer.from(e,t)),n&&this.once("finish",n),this[Ye]||(this[Y]?(e&&(this[As]+=e.length,this[Y].write(e)),this[Y].end()):(this[Ct]=!0,(this.brotli===void 0||this.zstd===void 0)&&(e=e||Buffer.alloc(0)),e&&this.write(e),this[Ki]())),this}},vs=l(e=>{let t=e.length-1,n=-1;for(;t>-1&&e.charAt(t)==="/";)n=t,t--;return n===-1?e:e.slice(0,n)},"ut"),Cb=l(e=>{let t=e.onReadEntry;e.onReadEntry=t?n=>{t(n),n.resume()}:n=>n.resume()},"vn"),Tu=l((e,t)=>{let n=new Map(t.map(o=>[vs(o),!0])),s=e.filter,i=100,r=l((o,a="",c=0)=>{if(c>=i)return n.set(o,!1),!1;let u=a||(0,Sn.parse)(o).root||".",d;if(o===u)d=!1;else{let h=n.get(o);d=h!==void 0?h:r((0,Sn.dirname)(o),u,c+1)}return n.set(o,d),d},"n");e.filter=s?(o,a)=>s(o,a)&&r(vs(o)):o=>r(vs(o))},"Qi"),Bb=l(e=>{let t=new ks(e),n=e.file,s;try{s=p.openSync(n,"r");let i=p.fstatSync(s),r=e.maxReadSize||16*1024*1024;if(i.size<r){let o=Buffer.allocUnsafe(i.size),a=p.readSync(s,o,0,i.size,0);t.end(a===o.byteLength?o:o.subarray(0,a))}else{let o=0,a=Buffer.allocUnsafe(r);for(;o<i.size;){let c=p.readSync(s,a,0,r,o);if(c===0)break;o+=c,t.write(a.subarray(0,c))}t.end()}}finally{if(typeof s=="number")try{p.closeSync(s)}catch{}}},"Bn"),Ob=l((e,t)=>{let n=new ks(e),s=e.maxReadSize||16*1024*1024,i=e.file;return new Promise((r,o)=>{n.on("error",o),n.on("end",r),p.stat(i,(a,c)=>{if(a)o(a);else{let u=new ea(i,{readSize:s,size:c.size});u.on("error",o),u.pipe(n)}})})},"Pn"),Zi=bs(Bb,Ob,e=>new ks(e),e=>new ks(e),(e,t)=>{t?.length&&Tu(e,t),e.noResume||Cb(e)}),Nu=l((e,t,n)=>(e&=4095,n&&(e=(e|384)&-19),t&&(e&256&&(e|=64),e&32&&(e|=8),e&4&&(e|=1)),e),"Ji"),{isAbsolute:Rb,parse:ju}=F.win32,ma=l(e=>{let t="",n=ju(e);for(;Rb(e)||n.root;){let s=e.charAt(0)==="/"&&e.slice(0,4)!=="//?/"?"/":n.root;e=e.slice(s.length),t+=s,n=ju(e)}return[t,e]},"ce"),er=["|","<",">","?",":"],ga=er.map(e=>String.fromCodePoint(61440+Number(e.codePointAt(0)))),Tb=new Map(er.map((e,t)=>[e,ga[t]])),Nb=new Map(ga.map((e,t)=>[e,er[t]])),Fu=l(e=>er.reduce((t,n)=>t.split(n).join(Tb.get(n)),e),"ts"),jb=l(e=>ga.reduce((t,n)=>t.split(n).join(Nb.get(n)),e),"Qs"),Mu=l((e,t)=>t?(e=L(e).replace(/^\.(\/|$)/,""),vs(t)+"/"+e):L(e),"rr"),Fb=16*1024*1024,Lu=Symbol("process"),Pu=Symbol("file"),Du=Symbol("directory"),ya=Symbol("symlink"),Hu=Symbol("hardlink"),Es=Symbol("header"),tr=Symbol("read"),ba=Symbol("lstat"),nr=Symbol("onlstat"),wa=Symbol("onread"),_a=Symbol("onreadlink"),Aa=Symbol("openfile"),ka=Symbol("onopenfile"),Bt=Symbol("close"),sr=Symbol("mode"),va=Symbol("awaitDrain"),Ea=Symbol("ondrain"),Ve=Symbol("prefix"),Qu=class extends Wt{static{l(this,"de")}path;portable;myuid=process.getuid&&process.getuid()||0;myuser=process.env.USER||"";maxReadSize;linkCache;statCache;preservePaths;cwd;strict;mtime;noPax;noMtime;prefix;fd;blockLen=0;blockRemain=0;buf;pos=0;remain=0;length=0;offset=0;win32;absolute;header;type;linkpath;stat;onWriteEntry;#e=!1;constructor(e,t={}){let n=ta(t);super(),this.path=L(e),this.portable=!!n.portable,this.maxReadSize=n.maxReadSize||Fb,this.linkCache=n.linkCache||new Map,this.statCache=n.statCache||new Map,this.preservePaths=!!n.preservePaths,this.cwd=L(n.cwd||process.cwd()),this.strict=!!n.strict,this.noPax=!!n.noPax,this.noMtime=!!n.noMtime,this.mtime=n.mtime,this.prefix=n.prefix?L(n.prefix):void 0,this.onWriteEntry=n.onWriteEntry,typeof n.onwarn=="function"&&this.on("warn",n.onwarn);let s=!1;if(!this.preservePaths){let[r,o]=ma(this.path);r&&typeof o=="string"&&(this.path=o,s=r)}this.win32=!!n.win32||process.platform==="win32",this.win32&&(this.path=jb(this.path.replaceAll(/\\/g,"/")),e=e.replaceAll(/\\/g,"/")),this.absolute=L(n.absolute||Sn.resolve(this.cwd,e)),this.path===""&&(this.path="./"),s&&this.warn("TAR_ENTRY_INFO",`stripping ${s} from absolute path`,{entry:this,path:s+this.path});let i=this.statCache.get(this.absolute);i?this[nr](i):this[ba]()}warn(e,t,n={}){return zi(this,e,t,n)}emit(e,...t){return e==="error"&&(this.#e=!0),super.emit(e,...t)}[ba](){H.lstat(this.absolute,(e,t)=>{if(e)return this.emit("error",e);this[nr](t)})}[nr](e){this.statCache.set(this.absolute,e),this.stat=e,e.isFile()||(e.size=0),this.type=Pb(e),this.emit("stat",e),this[Lu]()}[Lu](){switch(this.type){case"File":return this[Pu]();case"Directory":return this[Du]();case"SymbolicLink":return this[ya]();default:return this.end()}}[sr](e){return Nu(e,this.type==="Directory",this.portable)}[Ve](e){return Mu(e,this.prefix)}[Es](){if(!this.stat)throw new Error("cannot write header before stat");this.type==="Directory"&&this.portable&&(this.noMtime=!0),this.onWriteEntry?.(this),this.header=new St({path:this[Ve](this.path),linkpath:this.type==="Link"&&this.linkpath!==void 0?this[Ve](this.linkpath):this.linkpath,mode:this[sr](this.stat.mode),uid:this.portable?void 0:this.stat.uid,gid:this.portable?void 0:this.stat.gid,size:this.stat.size,mtime:this.noMtime?void 0:this.mtime||this.stat.mtime,type:this.type==="Unsupported"?void 0:this.type,uname:this.portable?void 0:this.stat.uid===this.myuid?this.myuser:"",atime:this.portable?void 0:this.stat.atime,ctime:this.portable?void 0:this.stat.ctime}),this.header.encode()&&!this.noPax&&super.write(new Wi({atime:this.portable?void 0:this.header.atime,ctime:this.portable?void 0:this.header.ctime,gid:this.portable?void 0:this.header.gid,mtime:this.noMtime?void 0:this.mtime||this.header.mtime,path:this[Ve](this.path),linkpath:this.type==="Link"&&this.linkpath!==void 0?this[Ve](this.linkpath):this.linkpath,size:this.header.size,uid:this.portable?void 0:this.header.uid,uname:this.portable?void 0:this.header.uname,dev:this.portable?void 0:this.stat.dev,ino:this.portable?void 0:this.stat.ino,nlink:this.portable?void 0:this.stat.nlink}).encode());let e=this.header?.block;if(!e)throw new Error("failed to encode header");super.write(e)}[Du](){if(!this.stat)throw new Error("cannot create directory entry without stat");this.path.slice(-1)!=="/"&&(this.path+="/"),this.stat.size=0,this[Es](),this.end()}[ya](){H.readlink(this.absolute,(e,t)=>{if(e)return this.emit("error",e);this[_a](t)})}[_a](e){this.linkpath=L(e),this[Es](),this.end()}[Hu](e){if(!this.stat)throw new Error("cannot create link entry without stat");this.type="Link",this.linkpath=L(Sn.relative(this.cwd,e)),this.stat.size=0,this[Es](),this.end()}[Pu](){if(!this.stat)throw new Error("cannot create file entry without stat");if(this.stat.nlink>1){let e=`${this.stat.dev}:${this.stat.ino}`,t=this.linkCache.get(e);if(t?.indexOf(this.cwd)===0)return this[Hu](t);this.linkCache.set(e,this.absolute)}if(this[Es](),this.stat.size===0)return this.end();this[Aa]()}[Aa](){H.open(this.absolute,"r",(e,t)=>{if(e)return this.emit("error",e);this[ka](t)})}[ka](e){if(this.fd=e,this.#e)return this[Bt]();if(!this.stat)throw new Error("should stat before calling onopenfile");this.blockLen=512*Math.ceil(this.stat.size/512),this.blockRemain=this.blockLen;let t=Math.min(this.blockLen,this.maxReadSize);this.buf=Buffer.allocUnsafe(t),this.offset=0,this.pos=0,this.remain=this.stat.size,this.length=this.buf.length,this[tr]()}[tr](){let{fd:e,buf:t,offset:n,length:s,pos:i}=this;if(e===void 0||t===void 0)throw new Error("cannot read file without first opening");H.read(e,t,n,s,i,(r,o)=>{if(r)return this[Bt](()=>this.emit("error",r));this[wa](o)})}[Bt](e=()=>{}){this.fd!==void 0&&H.close(this.fd,e)}[wa](e){if(e<=0&&this.remain>0){let n=Object.assign(new Error("encountered unexpected EOF"),{path:this.absolute,syscall:"read",code:"EOF"});return this[Bt](()=>this.emit("error",n))}if(e>this.remain){let n=Object.assign(new Error("did not encounter expected EOF"),{path:this.absolute,syscall:"read",code:"EOF"});return this[Bt](()=>this.emit("error",n))}if(!this.buf)throw new Error("should have created buffer prior to reading");if(e===this.remain)for(let n=e;n<this.length&&e<this.blockRemain;n++)this.buf[n+this.offset]=0,e++,this.remain++;let t=this.offset===0&&e===this.buf.length?this.buf:this.buf.subarray(this.offset,this.offset+e);this.write(t)?this[Ea]():this[va](()=>this[Ea]())}[va](e){this.once("drain",e)}write(e,t,n){if(typeof t=="function"&&(n=t,t=void 0),typeof e=="string"&&(e=Buffer.from(e,typeof t=="string"?t:"utf8")),this.blockRemain<e.length){let s=Object.assign(new Error("writing more data than expected"),{path:this.absolute});return this.emit("error",s)}return this.remain-=e.length,this.blockRemain-=e.length,this.pos+=e.length,this.offset+=e.length,super.write(e,null,n)}[Ea](){if(!this.remain)return this.blockRemain&&super.write(Buffer.alloc(this.blockRemain)),this[Bt](e=>e?this.emit("error",e):this.end());if(!this.buf)throw new Error("buffer lost somehow in ONDRAIN");this.offset>=this.length&&(this.buf=Buffer.allocUnsafe(Math.min(this.blockRemain,this.buf.length)),this.offset=0),this.length=this.buf.length-this.offset,this[tr]()}},Mb=class extends Qu{static{l(this,"ni")}sync=!0;[ba](){this[nr](H.lstatSync(this.absolute))}[ya](){this[_a](H.readlinkSync(this.absolute))}[Aa](){this[ka](H.openSync(this.absolute,"r"))}[tr](){let e=!0;try{let{fd:t,buf:n,offset:s,length:i,pos:r}=this;if(t===void 0||n===void 0)throw new Error("fd and buf must be set in READ method");let o=H.readSync(t,n,s,i,r);this[wa](o),e=!1}finally{if(e)try{this[Bt](()=>{})}catch{}}}[va](e){e()}[Bt](e=()=>{}){this.fd!==void 0&&H.closeSync(this.fd),e()}},Lb=class extends Wt{static{l(this,"oi")}blockLen=0;blockRemain=0;buf=0;pos=0;remain=0;length=0;preservePaths;portable;strict;noPax;noMtime;readEntry;type;prefix;path;mode;uid;gid;uname;gname;header;mtime;atime;ctime;linkpath;size;onWriteEntry;warn(e,t,n={}){return zi(this,e,t,n)}constructor(e,t={}){let n=ta(t);super(),this.preservePaths=!!n.preservePaths,this.portable=!!n.portable,this.strict=!!n.strict,this.noPax=!!n.noPax,this.noMtime=!!n.noMtime,this.onWriteEntry=n.onWriteEntry,this.readEntry=e;let{type:s}=e;if(s==="Unsupported")throw new Error("writing entry that should be ignored");this.type=s,this.type==="Directory"&&this.portable&&(this.noMtime=!0),this.prefix=n.prefix,this.path=L(e.path),this.mode=e.mode!==void 0?this[sr](e.mode):void 0,this.uid=this.portable?void 0:e.uid,this.gid=this.portable?void 0:e.gid,this.uname=this.portable?void 0:e.uname,this.gname=this.portable?void 0:e.gname,this.size=e.size,this.mtime=this.noMtime?void 0:n.mtime||e.mtime,this.atime=this.portable?void 0:e.atime,this.ctime=this.portable?void 0:e.ctime,this.linkpath=e.linkpath!==void 0?L(e.linkpath):void 0,typeof n.onwarn=="function"&&this.on("warn",n.onwarn);let i=!1;if(!this.preservePaths){let[o,a]=ma(this.path);o&&typeof a=="string"&&(this.path=a,i=o)}this.remain=e.size,this.blockRemain=e.startBlockSize,this.onWriteEntry?.(this),this.header=new St({path:this[Ve](this.path),linkpath:this.type==="Link"&&this.linkpath!==void 0?this[Ve](this.linkpath):this.linkpath,mode:this.mode,uid:this.portable?void 0:this.uid,gid:this.portable?void 0:this.gid,size:this.size,mtime:this.noMtime?void 0:this.mtime,type:this.type,uname:this.portable?void 0:this.uname,atime:this.portable?void 0:this.atime,ctime:this.portable?void 0:this.ctime}),i&&this.warn("TAR_ENTRY_INFO",`stripping ${i} from absolute path`,{entry:this,path:i+this.path}),this.header.encode()&&!this.noPax&&super.write(new Wi({atime:this.portable?void 0:this.atime,ctime:this.portable?void 0:this.ctime,gid:this.portable?void 0:this.gid,mtime:this.noMtime?void 0:this.mtime,path:this[Ve](this.path),linkpath:this.type==="Link"&&this.linkpath!==void 0?this[Ve](this.linkpath):this.linkpath,size:this.size,uid:this.portable?void 0:this.uid,uname:this.portable?void 0:this.uname,dev:this.portable?void 0:this.readEntry.dev,ino:this.portable?void 0:this.readEntry.ino,nlink:this.portable?void 0:this.readEntry.nlink}).encode());let r=this.header?.block;if(!r)throw new Error("failed to encode header");super.write(r),e.pipe(this)}[Ve](e){return Mu(e,this.prefix)}[sr](e){return Nu(e,this.type==="Directory",this.portable)}write(e,t,n){typeof t=="function"&&(n=t,t=void 0),typeof e=="string"&&(e=Buffer.from(e,typeof t=="string"?t:"utf8"));let s=e.length;if(s>this.blockRemain)throw new Error("writing more to entry than is appropriate");return this.blockRemain-=s,super.write(e,n)}end(e,t,n){return this.blockRemain&&super.write(Buffer.alloc(this.blockRemain)),typeof e=="function"&&(n=e,t=void 0,e=void 0),typeof t=="function"&&(n=t,t=void 0),typeof e=="string"&&(e=Buffer.from(e,t??"utf8")),n&&this.once("finish",n),e?super.end(e,n):super.end(n),this}},Pb=l(e=>e.isFile()?"File":e.isDirectory()?"Directory":e.isSymbolicLink()?"SymbolicLink":"Unsupported","Zn"),Db=class Wn{static{l(this,"s")}tail;head;length=0;static create(t=[]){return new Wn(t)}constructor(t=[]){for(let n of t)this.push(n)}*[Symbol.iterator](){for(let t=this.head;t;t=t.next)yield t.value}removeNode(t){if(t.list!==this)throw new Error("removing node which does not belong to this list");let n=t.next,s=t.prev;return n&&(n.prev=s),s&&(s.next=n),t===this.head&&(this.head=n),t===this.tail&&(this.tail=s),this.length--,t.next=void 0,t.prev=void 0,t.list=void 0,n}unshiftNode(t){if(t===this.head)return;t.list&&t.list.removeNode(t);let n=this.head;t.list=this,t.next=n,n&&(n.prev=t),this.head=t,this.tail||(this.tail=t),this.length++}pushNode(t){if(t===this.tail)return;t.list&&t.list.removeNode(t);let n=this.tail;t.list=this,t.prev=n,n&&(n.next=t),this.tail=t,this.head||(this.head=t),this.length++}push(...t){for(let n=0,s=t.length;n<s;n++)Qb(this,t[n]);return this.length}unshift(...t){for(var n=0,s=t.length;n<s;n++)Ub(this,t[n]);return this.length}pop(){if(!this.tail)return;let t=this.tail.value,n=this.tail;return this.tail=this.tail.prev,this.tail?this.tail.next=void 0:this.head=void 0,n.list=void 0,this.length--,t}shift(){if(!this.head)return;let t=this.head.value,n=this.head;return this.head=this.head.next,this.head?this.head.prev=void 0:this.tail=void 0,n.list=void 0,this.length--,t}forEach(t,n){n=n||this;for(let s=this.head,i=0;s;i++)t.call(n,s.value,i,this),s=s.next}forEachReverse(t,n){n=n||this;for(let s=this.tail,i=this.length-1;s;i--)t.call(n,s.value,i,this),s=s.prev}get(t){let n=0,s=this.head;for(;s&&n<t;n++)s=s.next;if(n===t&&s)return s.value}getReverse(t){let n=0,s=this.tail;for(;s&&n<t;n++)s=s.prev;if(n===t&&s)return s.value}map(t,n){n=n||this;let s=new Wn;for(let i=this.head;i;)s.push(t.call(n,i.value,this)),i=i.next;return s}mapReverse(t,n){n=n||this;var s=new Wn;for(let i=this.tail;i;)s.push(t.call(n,i.value,this)),i=i.prev;return s}reduce(t,n){let s,i=this.head;if(arguments.length>1)s=n;else if(this.head)i=this.head.next,s=this.head.value;else throw new TypeError("Reduce of empty list with no initial value");for(var r=0;i;r++)s=t(s,i.value,r),i=i.next;return s}reduceReverse(t,n){let s,i=this.tail;if(arguments.length>1)s=n;else if(this.tail)i=this.tail.prev,s=this.tail.value;else throw new TypeError("Reduce of empty list with no initial value");for(let r=this.length-1;i;r--)s=t(s,i.value,r),i=i.prev;return s}toArray(){let t=new Array(this.length);for(let n=0,s=this.head;s;n++)t[n]=s.value,s=s.next;return t}toArrayReverse(){let t=new Array(this.length);for(let n=0,s=this.tail;s;n++)t[n]=s.value,s=s.prev;return t}slice(t=0,n=this.length){n<0&&(n+=this.length),t<0&&(t+=this.length);let s=new Wn;if(n<t||n<0)return s;t<0&&(t=0),n>this.length&&(n=this.length);let i=this.head,r=0;for(r=0;i&&r<t;r++)i=i.next;for(;i&&r<n;r++,i=i.next)s.push(i.value);return s}sliceReverse(t=0,n=this.length){n<0&&(n+=this.length),t<0&&(t+=this.length);let s=new Wn;if(n<t||n<0)return s;t<0&&(t=0),n>this.length&&(n=this.length);let i=this.length,r=this.tail;for(;r&&i>n;i--)r=r.prev;for(;r&&i>t;i--,r=r.prev)s.push(r.value);return s}splice(t,n=0,...s){t>this.length&&(t=this.length-1),t<0&&(t=this.length+t);let i=this.head;for(let o=0;i&&o<t;o++)i=i.next;let r=[];for(let o=0;i&&o<n;o++)r.push(i.value),i=this.removeNode(i);i?i!==this.tail&&(i=i.prev):i=this.tail;for(let o of s)i=Hb(this,i,o);return r}reverse(){let t=this.head,n=this.tail;for(let s=t;s;s=s.prev){let i=s.prev;s.prev=s.next,s.next=i}return this.head=n,this.tail=t,this}};function Hb(e,t,n){let s=t,i=t?t.next:e.head,r=new Sa(n,s,i,e);return r.next===void 0&&(e.tail=r),r.prev===void 0&&(e.head=r),e.length++,r}l(Hb,"Yn");function Qb(e,t){e.tail=new Sa(t,e.tail,void 0,e),e.head||(e.head=e.tail),e.length++}l(Qb,"Kn");function Ub(e,t){e.head=new Sa(t,void 0,e.head,e),e.tail||(e.tail=e.head),e.length++}l(Ub,"$n");var Sa=class{static{l(this,"me")}list;next;prev;value;constructor(e,t,n,s){this.list=s,this.value=e,t?(t.next=this,this.prev=t):this.prev=void 0,n?(n.prev=this,this.next=n):this.next=void 0}},Uu=class{static{l(this,"pi")}path;absolute;entry;stat;readdir;pending=!1;pendingLink=!1;ignore=!1;piped=!1;constructor(e,t){this.path=e||"./",this.absolute=t}},Gu=Buffer.alloc(1024),ir=Symbol("onStat"),Ss=Symbol("ended"),Me=Symbol("queue"),$s=Symbol("pendingLinks"),Ot=Symbol("current"),en=Symbol("process"),xs=Symbol("processing"),rr=Symbol("processJob"),Le=Symbol("jobs"),$a=Symbol("jobDone"),or=Symbol("addFSEntry"),Wu=Symbol("addTarEntry"),xa=Symbol("stat"),Ia=Symbol("readdir"),ar=Symbol("onreaddir"),lr=Symbol("pipe"),zu=Symbol("entry"),Ca=Symbol("entryOpt"),cr=Symbol("writeEntryClass"),qu=Symbol("write"),Ba=Symbol("ondrain"),dr=class extends Wt{static{l(this,"wt")}sync=!1;opt;cwd;maxReadSize;preservePaths;strict;noPax;prefix;linkCache;statCache;file;portable;zip;readdirCache;noDirRecurse;follow;noMtime;mtime;filter;jobs;[cr];onWriteEntry;[Me];[$s]=new Map;[Le]=0;[xs]=!1;[Ss]=!1;constructor(e={}){if(super(),this.opt=e,this.file=e.file||"",this.cwd=e.cwd||process.cwd(),this.maxReadSize=e.maxReadSize,this.preservePaths=!!e.preservePaths,this.strict=!!e.strict,this.noPax=!!e.noPax,this.prefix=L(e.prefix||""),this.linkCache=e.linkCache||new Map,this.statCache=e.statCache||new Map,this.readdirCache=e.readdirCache||new Map,this.onWriteEntry=e.onWriteEntry,this[cr]=Qu,typeof e.onwarn=="function"&&this.on("warn",e.onwarn),this.portable=!!e.portable,e.gzip||e.brotli||e.zstd){if((e.gzip?1:0)+(e.brotli?1:0)+(e.zstd?1:0)>1)throw new TypeError("gzip, brotli, zstd are mutually exclusive");if(e.gzip&&(typeof e.gzip!="object"&&(e.gzip={}),this.portable&&(e.gzip.portable=!0),this.zip=new Yy(e.gzip)),e.brotli&&(typeof e.brotli!="object"&&(e.brotli={}),this.zip=new Xy(e.brotli)),e.zstd&&(typeof e.zstd!="object"&&(e.zstd={}),this.zip=new eb(e.zstd)),!this.zip)throw new Error("impossible");let t=this.zip;t.on("data",n=>super.write(n)),t.on("end",()=>super.end()),t.on("drain",()=>this[Ba]()),this.on("resume",()=>t.resume())}else this.on("drain",this[Ba]);this.noDirRecurse=!!e.noDirRecurse,this.follow=!!e.follow,this.noMtime=!!e.noMtime,e.mtime&&(this.mtime=e.mtime),this.filter=typeof e.filter=="function"?e.filter:()=>!0,this[Me]=new Db,this[Le]=0,this.jobs=Number(e.jobs)||4,this[xs]=!1,this[Ss]=!1}[qu](e){return super.write(e)}add(e){return this.write(e),this}end(e,t,n){return typeof e=="function"&&(n=e,e=void 0),typeof t=="function"&&(n=t,t=void 0),e&&this.add(e),this[Ss]=!0,this[en](),n&&n(),this}write(e){if(this[Ss])throw new Error("write after end");return typeof e=="string"?this[or](e):this[Wu](e),this.flowing}[Wu](e){let t=L(Sn.resolve(this.cwd,e.path));if(!this.filter(e.path,e))e.resume();else{let n=new Uu(e.path,t);n.entry=new Lb(e,this[Ca](n)),n.entry.on("end",()=>this[$a](n)),this[Le]+=1,this[Me].push(n)}this[en]()}[or](e){let t=L(Sn.resolve(this.cwd,e));this[Me].push(new Uu(e,t)),this[en]()}[xa](e){e.pending=!0,this[Le]+=1;let t=this.follow?"stat":"lstat";H[t](e.absolute,(n,s)=>{e.pending=!1,this[Le]-=1,n?this.emit("error",n):this[ir](e,s)})}[ir](e,t){if(this.statCache.set(e.absolute,t),e.stat=t,!this.filter(e.path,t))e.ignore=!0;else if(t.isFile()&&t.nlink>1&&!this.linkCache.get(`${t.dev}:${t.ino}`)&&!this.sync)if(e===this[Ot])this[rr](e);else{let n=`${t.dev}:${t.ino}`,s=this[$s].get(n);s?s.push(e):this[$s].set(n,[e]),e.pendingLink=!0,e.pending=!0}this[en]()}[Ia](e){e.pending=!0,this[Le]+=1,H.readdir(e.absolute,(t,n)=>{if(e.pending=!1,this[Le]-=1,t)return this.emit("error",t);this[ar](e,n)})}[ar](e,t){this.readdirCache.set(e.absolute,t),e.readdir=t,this[en]()}[en](){if(!this[xs]){this[xs]=!0;for(let e=this[Me].head;e&&this[Le]<this.jobs;e=e.next)if(this[rr](e.value),e.value.ignore){let t=e.next;this[Me].removeNode(e),e.next=t}this[xs]=!1,this[Ss]&&this[Me].length===0&&this[Le]===0&&(this.zip?this.zip.end(Gu):(super.write(Gu),super.end()))}}get[Ot](){return this[Me]&&this[Me].head&&this[Me].head.value}[$a](e){this[Me].shift(),this[Le]-=1;let{stat:t}=e;if(t&&t.isFile()&&t.nlink>1){let n=`${t.dev}:${t.ino}`,s=this[$s].get(n);if(s){this[$s].delete(n);for(let i of s)i.pending=!1,this[rr](i)}}this[en]()}[rr](e){if(e.pending&&e.pendingLink&&e===this[Ot]&&(e.pending=!1,e.pendingLink=!1),!e.pending){if(e.entry){e===this[Ot]&&!e.piped&&this[lr](e);return}if(!e.stat){let t=this.statCache.get(e.absolute);t?this[ir](e,t):this[xa](e)}if(e.stat&&!e.ignore){if(!this.noDirRecurse&&e.stat.isDirectory()&&!e.readdir){let t=this.readdirCache.get(e.absolute);if(t?this[ar](e,t):this[Ia](e),!e.readdir)return}if(e.entry=this[zu](e),!e.entry){e.ignore=!0;return}e===this[Ot]&&!e.piped&&this[lr](e)}}}[Ca](e){return{onwarn:l((t,n,s)=>this.warn(t,n,s),"onwarn"),noPax:this.noPax,cwd:this.cwd,absolute:e.absolute,preservePaths:this.preservePaths,maxReadSize:this.maxReadSize,strict:this.strict,portable:this.portable,linkCache:this.linkCache,statCache:this.statCache,noMtime:this.noMtime,mtime:this.mtime,prefix:this.prefix,onWriteEntry:this.onWriteEntry}}[zu](e){this[Le]+=1;try{return new this[cr](e.path,this[Ca](e)).on("end",()=>this[$a](e)).on("error",t=>this.emit("error",t))}catch(t){this.emit("error",t)}}[Ba](){this[Ot]&&this[Ot].entry&&this[Ot].entry.resume()}[lr](e){e.piped=!0,e.readdir&&e.readdir.forEach(s=>{let i=e.path,r=i==="./"?"":i.replace(/\/*$/,"/");this[or](r+s)});let t=e.entry,n=this.zip;if(!t)throw new Error("cannot pipe without source");n?t.on("data",s=>{n.write(s)||t.pause()}):t.on("data",s=>{super.write(s)||t.pause()})}pause(){return this.zip&&this.zip.pause(),super.pause()}warn(e,t,n={}){zi(this,e,t,n)}},ur=class extends dr{static{l(this,"kt")}sync=!0;constructor(e){super(e),this[cr]=Mb}pause(){}resume(){}[xa](e){let t=this.follow?"statSync":"lstatSync";this[ir](e,H[t](e.absolute))}[Ia](e){this[ar](e,H.readdirSync(e.absolute))}[lr](e){let t=e.entry,n=this.zip;if(e.readdir&&e.readdir.forEach(s=>{let i=e.path,r=i==="./"?"":i.replace(/\/*$/,"/");this[or](r+s)}),!t)throw new Error("Cannot pipe without source");n?t.on("data",s=>{n.write(s)}):t.on("data",s=>{super[qu](s)})}},Gb=l((e,t)=>{let n=new ur(e),s=new bu(e.file,{mode:e.mode||438});n.pipe(s),Ju(n,t)},"Vn"),Wb=l((e,t)=>{let n=new dr(e),s=new Hi(e.file,{mode:e.mode||438});n.pipe(s);let i=new Promise((r,o)=>{s.on("error",o),s.on("close",r),n.on("error",o)});return Ku(n,t).catch(r=>n.emit("error",r)),i},"Xn"),Ju=l((e,t)=>{t.forEach(n=>{n.charAt(0)==="@"?Zi({file:F.resolve(e.cwd,n.slice(1)),sync:!0,noResume:!0,onReadEntry:l(s=>e.add(s),"onReadEntry")}):e.add(n)}),e.end()},"fr"),Ku=l(async(e,t)=>{for(let n of t)n.charAt(0)==="@"?await Zi({file:F.resolve(String(e.cwd),n.slice(1)),noResume:!0,onReadEntry:l(s=>{e.add(s)},"onReadEntry")}):e.add(n);e.end()},"dr"),zb=l((e,t)=>{let n=new ur(e);return Ju(n,t),n},"qn"),qb=l((e,t)=>{let n=new dr(e);return Ku(n,t).catch(s=>n.emit("error",s)),n},"Qn"),q1=bs(Gb,Wb,zb,qb,(e,t)=>{if(!t?.length)throw new TypeError("no paths specified to add to archive")}),Jb=process.env.__FAKE_PLATFORM__||process.platform,Yu=Jb==="win32",{O_CREAT:Vu,O_NOFOLLOW:Xu,O_TRUNC:Zu,O_WRONLY:eh}=H.constants,th=Number(process.env.__FAKE_FS_O_FILENAME__)||H.constants.UV_FS_O_FILEMAP||0,Kb=Yu&&!!th,Yb=512*1024,Vb=th|Zu|Vu|eh,nh=!Yu&&typeof Xu=="number"?Xu|Zu|Vu|eh:null,sh=nh!==null?()=>nh:Kb?e=>e<Yb?Vb:"w":()=>"w",Oa=l((e,t,n)=>{try{return p.lchownSync(e,t,n)}catch(s){if(s?.code!=="ENOENT")throw s}},"ps"),hr=l((e,t,n,s)=>{p.lchown(e,t,n,i=>{s(i&&i?.code!=="ENOENT"?i:null)})},"Ei"),Xb=l((e,t,n,s,i)=>{if(t.isDirectory())ih(F.resolve(e,t.name),n,s,r=>{if(r)return i(r);let o=F.resolve(e,t.name);hr(o,n,s,i)});else{let r=F.resolve(e,t.name);hr(r,n,s,i)}},"so"),ih=l((e,t,n,s)=>{p.readdir(e,{withFileTypes:!0},(i,r)=>{if(i){if(i.code==="ENOENT")return s();if(i.code!=="ENOTDIR"&&i.code!=="ENOTSUP")return s(i)}if(i||!r.length)return hr(e,t,n,s);let o=r.length,a=null,c=l(u=>{if(!a){if(u)return s(a=u);if(--o===0)return hr(e,t,n,s)}},"a");for(let u of r)Xb(e,u,t,n,c)})},"Es"),Zb=l((e,t,n,s)=>{t.isDirectory()&&rh(F.resolve(e,t.name),n,s),Oa(F.resolve(e,t.name),n,s)},"ro"),rh=l((e,t,n)=>{let s;try{s=p.readdirSync(e,{withFileTypes:!0})}catch(i){let r=i;if(r?.code==="ENOENT")return;if(r?.code==="ENOTDIR"||r?.code==="ENOTSUP")return Oa(e,t,n);throw r}for(let i of s)Zb(e,i,t,n);return Oa(e,t,n)},"ws"),oh=class extends Error{static{l(this,"Se")}path;code;syscall="chdir";constructor(e,t){super(`${t}: Cannot cd into '${e}'`),this.path=e,this.code=t}get name(){return"CwdError"}},fr=class extends Error{static{l(this,"St")}path;symlink;syscall="symlink";code="TAR_SYMLINK_ERROR";constructor(e,t){super("TAR_SYMLINK_ERROR: Cannot extract through symbolic link"),this.symlink=e,this.path=t}get name(){return"SymlinkError"}},ew=l((e,t)=>{p.stat(e,(n,s)=>{(n||!s.isDirectory())&&(n=new oh(e,n?.code||"ENOTDIR")),t(n)})},"oo"),tw=l((e,t,n)=>{e=L(e);let s=t.umask??18,i=t.mode|448,r=(i&s)!==0,o=t.uid,a=t.gid,c=typeof o=="number"&&typeof a=="number"&&(o!==t.processUid||a!==t.processGid),u=t.preserve,d=t.unlink,h=L(t.cwd),f=l((m,b)=>{m?n(m):b&&c?ih(b,o,a,_=>f(_)):r?p.chmod(e,i,n):n()},"y");if(e===h)return ew(e,f);if(u)return Sy.mkdir(e,{mode:i,recursive:!0}).then(m=>f(null,m??void 0),f);let y=L(F.relative(h,e)).split("/");Ra(h,y,i,d,h,void 0,f)},"gr"),Ra=l((e,t,n,s,i,r,o)=>{if(t.length===0)return o(null,r);let a=t.shift(),c=L(F.resolve(e+"/"+a));p.mkdir(c,n,ah(c,t,n,s,i,r,o))},"Ss"),ah=l((e,t,n,s,i,r,o)=>a=>{a?p.lstat(e,(c,u)=>{if(c)c.path=c.path&&L(c.path),o(c);else if(u.isDirectory())Ra(e,t,n,s,i,r,o);else if(s)p.unlink(e,d=>{if(d)return o(d);p.mkdir(e,n,ah(e,t,n,s,i,r,o))});else{if(u.isSymbolicLink())return o(new fr(e,e+"/"+t.join("/")));o(a)}}):(r=r||e,Ra(e,t,n,s,i,r,o))},"br"),nw=l(e=>{let t=!1,n;try{t=p.statSync(e).isDirectory()}catch(s){n=s?.code}finally{if(!t)throw new oh(e,n??"ENOTDIR")}},"ho"),sw=l((e,t)=>{e=L(e);let n=t.umask??18,s=t.mode|448,i=(s&n)!==0,r=t.uid,o=t.gid,a=typeof r=="number"&&typeof o=="number"&&(r!==t.processUid||o!==t.processGid),c=t.preserve,u=t.unlink,d=L(t.cwd),h=l(m=>{m&&a&&rh(m,r,o),i&&p.chmodSync(e,s)},"d");if(e===d)return nw(d),h();if(c)return h(p.mkdirSync(e,{mode:s,recursive:!0})??void 0);let f=L(F.relative(d,e)).split("/"),y;for(let m=f.shift(),b=d;m&&(b+="/"+m);m=f.shift()){b=L(F.resolve(b));try{p.mkdirSync(b,s),y=y||b}catch{let _=p.lstatSync(b);if(_.isDirectory())continue;if(u){p.unlinkSync(b),p.mkdirSync(b,s),y=y||b;continue}else if(_.isSymbolicLink())return new fr(b,b+"/"+f.join("/"))}}return h(y)},"_r"),Ta=Object.create(null),lh=1e4,Tn=new Set,iw=l(e=>{Tn.has(e)?Tn.delete(e):Ta[e]=e.normalize("NFD").toLocaleLowerCase("en").toLocaleUpperCase("en"),Tn.add(e);let t=Ta[e],n=Tn.size-lh;if(n>lh/10){for(let s of Tn)if(Tn.delete(s),delete Ta[s],--n<=0)break}return t},"Tr"),rw=process.env.TESTING_TAR_FAKE_PLATFORM||process.platform,ow=rw==="win32",aw=l(e=>e.split("/").slice(0,-1).reduce((t,n)=>{let s=t.at(-1);return s!==void 0&&(n=(0,F.join)(s,n)),t.push(n||"/"),t},[]),"co"),lw=class{static{l(this,"yi")}#e=new Map;#n=new Map;#s=new Set;reserve(e,t){e=ow?["win32 parallelization disabled"]:e.map(s=>vs((0,F.join)(iw(s))));let n=new Set(e.map(s=>aw(s)).reduce((s,i)=>s.concat(i)));this.#n.set(t,{dirs:n,paths:e});for(let s of e){let i=this.#e.get(s);i?i.push(t):this.#e.set(s,[t])}for(let s of n){let i=this.#e.get(s);if(!i)this.#e.set(s,[new Set([t])]);else{let r=i.at(-1);r instanceof Set?r.add(t):i.push(new Set([t]))}}return this.#i(t)}#r(e){let t=this.#n.get(e);if(!t)throw new Error("function does not have any path reservations");return{paths:t.paths.map(n=>this.#e.get(n)),dirs:[...t.dirs].map(n=>this.#e.get(n))}}check(e){let{paths:t,dirs:n}=this.#r(e);return t.every(s=>s&&s[0]===e)&&n.every(s=>s&&s[0]instanceof Set&&s[0].has(e))}#i(e){return this.#s.has(e)||!this.check(e)?!1:(this.#s.add(e),e(()=>this.#t(e)),!0)}#t(e){if(!this.#s.has(e))return!1;let t=this.#n.get(e);if(!t)throw new Error("invalid reservation");let{paths:n,dirs:s}=t,i=new Set;for(let r of n){let o=this.#e.get(r);if(!o||o?.[0]!==e)continue;let a=o[1];if(!a){this.#e.delete(r);continue}if(o.shift(),typeof a=="function")i.add(a);else for(let c of a)i.add(c)}for(let r of s){let o=this.#e.get(r),a=o?.[0];if(!(!o||!(a instanceof Set)))if(a.size===1&&o.length===1){this.#e.delete(r);continue}else if(a.size===1){o.shift();let c=o[0];typeof c=="function"&&i.add(c)}else a.delete(e)}return this.#s.delete(e),i.forEach(r=>this.#i(r)),!0}},cw=l(()=>process.umask(),"Lr"),ch=Symbol("onEntry"),Na=Symbol("checkFs"),dh=Symbol("checkFs2"),ja=Symbol("isReusable"),Se=Symbol("makeFs"),Fa=Symbol("file"),Ma=Symbol("directory"),pr=Symbol("link"),uh=Symbol("symlink"),hh=Symbol("hardlink"),Is=Symbol("ensureNoSymlink"),fh=Symbol("unsupported"),ph=Symbol("checkPath"),La=Symbol("stripAbsolutePath"),Rt=Symbol("mkdir"),oe=Symbol("onError"),mr=Symbol("pending"),mh=Symbol("pend"),Nn=Symbol("unpend"),Pa=Symbol("ended"),Da=Symbol("maybeClose"),Ha=Symbol("skip"),Cs=Symbol("doChown"),Bs=Symbol("uid"),Os=Symbol("gid"),Rs=Symbol("checkedCwd"),dw=process.env.TESTING_TAR_FAKE_PLATFORM||process.platform,Ts=dw==="win32",uw=1024,hw=l((e,t)=>{if(!Ts)return p.unlink(e,t);let n=e+".DELETE."+(0,D.randomBytes)(16).toString("hex");p.rename(e,n,s=>{if(s)return t(s);p.unlink(n,t)})},"po"),fw=l(e=>{if(!Ts)return p.unlinkSync(e);let t=e+".DELETE."+(0,D.randomBytes)(16).toString("hex");p.renameSync(e,t),p.unlinkSync(t)},"Eo"),gh=l((e,t,n)=>e!==void 0&&e===e>>>0?e:t!==void 0&&t===t>>>0?t:n,"Mr"),Qa=class extends ks{static{l(this,"Xt")}[Pa]=!1;[Rs]=!1;[mr]=0;reservations=new lw;transform;writable=!0;readable=!1;uid;gid;setOwner;preserveOwner;processGid;processUid;maxDepth;forceChown;win32;newer;keep;noMtime;preservePaths;unlink;cwd;strip;processUmask;umask;dmode;fmode;chmod;constructor(e={}){if(e.ondone=()=>{this[Pa]=!0,this[Da]()},super(e),this.transform=e.transform,this.chmod=!!e.chmod,typeof e.uid=="number"||typeof e.gid=="number"){if(typeof e.uid!="number"||typeof e.gid!="number")throw new TypeError("cannot set owner without number uid and gid");if(e.preserveOwner)throw new TypeError("cannot preserve owner in archive and also set owner explicitly");this.uid=e.uid,this.gid=e.gid,this.setOwner=!0}else this.uid=void 0,this.gid=void 0,this.setOwner=!1;this.preserveOwner=e.preserveOwner===void 0&&typeof e.uid!="number"?process.getuid?.()===0:!!e.preserveOwner,this.processUid=(this.preserveOwner||this.setOwner)&&process.getuid?process.getuid():void 0,this.processGid=(this.preserveOwner||this.setOwner)&&process.getgid?process.getgid():void 0,this.maxDepth=typeof e.maxDepth=="number"?e.maxDepth:uw,this.forceChown=e.forceChown===!0,this.win32=!!e.win32||Ts,this.newer=!!e.newer,this.keep=!!e.keep,this.noMtime=!!e.noMtime,this.preservePaths=!!e.preservePaths,this.unlink=!!e.unlink,this.cwd=L(F.resolve(e.cwd||process.cwd())),this.strip=Number(e.strip)||0,this.processUmask=this.chmod?typeof e.processUmask=="number"?e.processUmask:cw():0,this.umask=typeof e.umask=="number"?e.umask:this.processUmask,this.dmode=e.dmode||511&~this.umask,this.fmode=e.fmode||438&~this.umask,this.on("entry",t=>this[ch](t))}warn(e,t,n={}){return(e==="TAR_BAD_ARCHIVE"||e==="TAR_ABORT")&&(n.recoverable=!1),super.warn(e,t,n)}[Da](){this[Pa]&&this[mr]===0&&(this.emit("prefinish"),this.emit("finish"),this.emit("end"))}[La](e,t){let n=e[t],{type:s}=e;if(!n||this.preservePaths)return!0;let[i,r]=ma(n),o=r.replaceAll(/\\/g,"/").split("/");if(o.includes("..")||Ts&&/^[a-z]:\.\.$/i.test(o[0]??"")){if(t==="path"||s==="Link")return this.warn("TAR_ENTRY_ERROR",`${t} contains '..'`,{entry:e,[t]:n}),!1;let a=F.posix.dirname(e.path),c=F.posix.normalize(F.posix.join(a,o.join("/")));if(c.startsWith("../")||c==="..")return this.warn("TAR_ENTRY_ERROR",`${t} escapes extraction directory`,{entry:e,[t]:n}),!1}return i&&(e[t]=String(r),this.warn("TAR_ENTRY_INFO",`stripping ${i} from absolute ${t}`,{entry:e,[t]:n})),!0}[ph](e){let t=L(e.path),n=t.split("/");if(this.strip){if(n.length<this.strip)return!1;if(e.type==="Link"){let s=L(String(e.linkpath)).split("/");if(s.length>=this.strip)e.linkpath=s.slice(this.strip).join("/");else return!1}n.splice(0,this.strip),e.path=n.join("/")}if(isFinite(this.maxDepth)&&n.length>this.maxDepth)return this.warn("TAR_ENTRY_ERROR","path excessively deep",{entry:e,path:t,depth:n.length,maxDepth:this.maxDepth}),!1;if(!this[La](e,"path")||!this[La](e,"linkpath"))return!1;if(e.absolute=F.isAbsolute(e.path)?L(F.resolve(e.path)):L(F.resolve(this.cwd,e.path)),!this.preservePaths&&typeof e.absolute=="string"&&e.absolute.indexOf(this.cwd+"/")!==0&&e.absolute!==this.cwd)return this.warn("TAR_ENTRY_ERROR","path escaped extraction target",{entry:e,path:L(e.path),resolvedPath:e.absolute,cwd:this.cwd}),!1;if(e.absolute===this.cwd&&e.type!=="Directory"&&e.type!=="GNUDumpDir")return!1;if(this.win32){let{root:s}=F.win32.parse(String(e.absolute));e.absolute=s+Fu(String(e.absolute).slice(s.length));let{root:i}=F.win32.parse(e.path);e.path=i+Fu(e.path.slice(i.length))}return!0}[ch](e){if(!this[ph](e))return e.resume();switch(Ey.equal(typeof e.absolute,"string"),e.type){case"Directory":case"GNUDumpDir":e.mode&&(e.mode=e.mode|448);case"File":case"OldFile":case"ContiguousFile":case"Link":case"SymbolicLink":return this[Na](e);default:return this[fh](e)}}[oe](e,t){e.name==="CwdError"?this.emit("error",e):(this.warn("TAR_ENTRY_ERROR",e,{entry:t}),this[Nn](),t.resume())}[Rt](e,t,n){tw(L(e),{uid:this.uid,gid:this.gid,processUid:this.processUid,processGid:this.processGid,umask:this.processUmask,preserve:this.preservePaths,unlink:this.unlink,cwd:this.cwd,mode:t},n)}[Cs](e){return this.forceChown||this.preserveOwner&&(typeof e.uid=="number"&&e.uid!==this.processUid||typeof e.gid=="number"&&e.gid!==this.processGid)||typeof this.uid=="number"&&this.uid!==this.processUid||typeof this.gid=="number"&&this.gid!==this.processGid}[Bs](e){return gh(this.uid,e.uid,this.processUid)}[Os](e){return gh(this.gid,e.gid,this.processGid)}[Fa](e,t){let n=typeof e.mode=="number"?e.mode&4095:this.fmode,s=new Hi(String(e.absolute),{flags:sh(e.size),mode:n,autoClose:!1});s.on("error",a=>{s.fd&&p.close(s.fd,()=>{}),s.write=()=>!0,this[oe](a,e),t()});let i=1,r=l(a=>{if(a){s.fd&&p.close(s.fd,()=>{}),this[oe](a,e),t();return}--i===0&&s.fd!==void 0&&p.close(s.fd,c=>{c?this[oe](c,e):this[Nn](),t()})},"o");s.on("finish",()=>{let a=String(e.absolute),c=s.fd;if(typeof c=="number"&&e.mtime&&!this.noMtime){i++;let u=e.atime||new Date,d=e.mtime;p.futimes(c,u,d,h=>h?p.utimes(a,u,d,f=>r(f&&h)):r())}if(typeof c=="number"&&this[Cs](e)){i++;let u=this[Bs](e),d=this[Os](e);typeof u=="number"&&typeof d=="number"&&p.fchown(c,u,d,h=>h?p.chown(a,u,d,f=>r(f&&h)):r())}r()});let o=this.transform&&this.transform(e)||e;o!==e&&(o.on("error",a=>{this[oe](a,e),t()}),e.pipe(o)),o.pipe(s)}[Ma](e,t){let n=typeof e.mode=="number"?e.mode&4095:this.dmode;this[Rt](String(e.absolute),n,s=>{if(s){this[oe](s,e),t();return}let i=1,r=l(()=>{--i===0&&(t(),this[Nn](),e.resume())},"o");e.mtime&&!this.noMtime&&(i++,p.utimes(String(e.absolute),e.atime||new Date,e.mtime,r)),this[Cs](e)&&(i++,p.chown(String(e.absolute),Number(this[Bs](e)),Number(this[Os](e)),r)),r()})}[fh](e){e.unsupported=!0,this.warn("TAR_ENTRY_UNSUPPORTED",`unsupported entry type: ${e.type}`,{entry:e}),e.resume()}[uh](e,t){let n=L(F.relative(this.cwd,F.resolve(F.dirname(String(e.absolute)),String(e.linkpath)))).split("/");this[Is](e,this.cwd,n,()=>this[pr](e,String(e.linkpath),"symlink",t),s=>{this[oe](s,e),t()})}[hh](e,t){let n=L(F.resolve(this.cwd,String(e.linkpath))),s=L(String(e.linkpath)).split("/");this[Is](e,this.cwd,s,()=>this[pr](e,n,"link",t),i=>{this[oe](i,e),t()})}[Is](e,t,n,s,i){let r=n.shift();if(this.preservePaths||r===void 0)return s();let o=F.resolve(t,r);p.lstat(o,(a,c)=>{if(a)return s();if(c?.isSymbolicLink())return i(new fr(o,F.resolve(o,n.join("/"))));this[Is](e,o,n,s,i)})}[mh](){this[mr]++}[Nn](){this[mr]--,this[Da]()}[Ha](e){this[Nn](),e.resume()}[ja](e,t){return e.type==="File"&&!this.unlink&&t.isFile()&&t.nlink<=1&&!Ts}[Na](e){this[mh]();let t=[e.path];e.linkpath&&t.push(e.linkpath),this.reservations.reserve(t,n=>this[dh](e,n))}[dh](e,t){let n=l(o=>{t(o)},"i"),s=l(()=>{this[Rt](this.cwd,this.dmode,o=>{if(o){this[oe](o,e),n();return}this[Rs]=!0,i()})},"r"),i=l(()=>{if(e.absolute!==this.cwd){let o=L(F.dirname(String(e.absolute)));if(o!==this.cwd)return this[Rt](o,this.dmode,a=>{if(a){this[oe](a,e),n();return}r()})}r()},"n"),r=l(()=>{p.lstat(String(e.absolute),(o,a)=>{if(a&&(this.keep||this.newer&&a.mtime>(e.mtime??a.mtime))){this[Ha](e),n();return}if(o||this[ja](e,a))return this[Se](null,e,n);if(a.isDirectory()){if(e.type==="Directory"){let c=this.chmod&&e.mode&&(a.mode&4095)!==e.mode,u=l(d=>this[Se](d??null,e,n),"c");return c?p.chmod(String(e.absolute),Number(e.mode),u):u()}if(e.absolute!==this.cwd)return p.rmdir(String(e.absolute),c=>this[Se](c??null,e,n))}if(e.absolute===this.cwd)return this[Se](null,e,n);hw(String(e.absolute),c=>this[Se](c??null,e,n))})},"o");this[Rs]?i():s()}[Se](e,t,n){if(e){this[oe](e,t),n();return}switch(t.type){case"File":case"OldFile":case"ContiguousFile":return this[Fa](t,n);case"Link":return this[hh](t,n);case"SymbolicLink":return this[uh](t,n);case"Directory":case"GNUDumpDir":return this[Ma](t,n)}}[pr](e,t,n,s){p[n](t,String(e.absolute),i=>{i?this[oe](i,e):(this[Nn](),e.resume()),s()})}},Ns=l(e=>{try{return[null,e()]}catch(t){return[t,null]}},"ye"),yh=class extends Qa{static{l(this,"xe")}sync=!0;[Se](e,t){return super[Se](e,t,()=>{})}[Na](e){if(!this[Rs]){let i=this[Rt](this.cwd,this.dmode);if(i)return this[oe](i,e);this[Rs]=!0}if(e.absolute!==this.cwd){let i=L(F.dirname(String(e.absolute)));if(i!==this.cwd){let r=this[Rt](i,this.dmode);if(r)return this[oe](r,e)}}let[t,n]=Ns(()=>p.lstatSync(String(e.absolute)));if(n&&(this.keep||this.newer&&n.mtime>(e.mtime??n.mtime)))return this[Ha](e);if(t||this[ja](e,n))return this[Se](null,e);if(n.isDirectory()){if(e.type==="Directory"){let r=this.chmod&&e.mode&&(n.mode&4095)!==e.mode,[o]=r?Ns(()=>{p.chmodSync(String(e.absolute),Number(e.mode))}):[];return this[Se](o,e)}let[i]=Ns(()=>p.rmdirSync(String(e.absolute)));this[Se](i,e)}let[s]=e.absolute===this.cwd?[]:Ns(()=>fw(String(e.absolute)));this[Se](s,e)}[Fa](e,t){let n=typeof e.mode=="number"?e.mode&4095:this.fmode,s=l(o=>{let a;try{p.closeSync(i)}catch(c){a=c}(o||a)&&this[oe](o||a,e),t()},"r"),i;try{i=p.openSync(String(e.absolute),sh(e.size),n)}catch(o){return s(o)}let r=this.transform&&this.transform(e)||e;r!==e&&(r.on("error",o=>this[oe](o,e)),e.pipe(r)),r.on("data",o=>{try{p.writeSync(i,o,0,o.length)}catch(a){s(a)}}),r.on("end",()=>{let o=null;if(e.mtime&&!this.noMtime){let a=e.atime||new Date,c=e.mtime;try{p.futimesSync(i,a,c)}catch(u){try{p.utimesSync(String(e.absolute),a,c)}catch{o=u}}}if(this[Cs](e)){let a=this[Bs](e),c=this[Os](e);try{p.fchownSync(i,Number(a),Number(c))}catch(u){try{p.chownSync(String(e.absolute),Number(a),Number(c))}catch{o=o||u}}}s(o)})}[Ma](e,t){let n=typeof e.mode=="number"?e.mode&4095:this.dmode,s=this[Rt](String(e.absolute),n);if(s){this[oe](s,e),t();return}if(e.mtime&&!this.noMtime)try{p.utimesSync(String(e.absolute),e.atime||new Date,e.mtime)}catch{}if(this[Cs](e))try{p.chownSync(String(e.absolute),Number(this[Bs](e)),Number(this[Os](e)))}catch{}t(),e.resume()}[Rt](e,t){try{return sw(L(e),{uid:this.uid,gid:this.gid,processUid:this.processUid,processGid:this.processGid,umask:this.processUmask,preserve:this.preservePaths,unlink:this.unlink,cwd:this.cwd,mode:t})}catch(n){return n}}[Is](e,t,n,s,i){if(this.preservePaths||n.length===0)return s();let r=t;for(let o of n){r=F.resolve(r,o);let[a,c]=Ns(()=>p.lstatSync(r));if(a)return s();if(c.isSymbolicLink())return i(new fr(r,F.resolve(t,n.join("/"))))}s()}[pr](e,t,n,s){let i=`${n}Sync`;try{p[i](t,String(e.absolute)),s(),e.resume()}catch(r){return this[oe](r,e)}}},pw=l(e=>{let t=new yh(e),n=e.file,s=p.statSync(n),i=e.maxReadSize||16*1024*1024;new Py(n,{readSize:i,size:s.size}).pipe(t)},"wo"),mw=l((e,t)=>{let n=new Qa(e),s=e.maxReadSize||16*1024*1024,i=e.file;return new Promise((r,o)=>{n.on("error",o),n.on("close",r),p.stat(i,(a,c)=>{if(a)o(a);else{let u=new ea(i,{readSize:s,size:c.size});u.on("error",o),u.pipe(n)}})})},"So"),J1=bs(pw,mw,e=>new yh(e),e=>new Qa(e),(e,t)=>{t?.length&&Tu(e,t)}),gw=l((e,t)=>{let n=new ur(e),s=!0,i,r;try{try{i=p.openSync(e.file,"r+")}catch(c){if(c?.code==="ENOENT")i=p.openSync(e.file,"w+");else throw c}let o=p.fstatSync(i),a=Buffer.alloc(512);e:for(r=0;r<o.size;r+=512){for(let d=0,h=0;d<512;d+=h){if(h=p.readSync(i,a,d,a.length-d,r+d),r===0&&a[0]===31&&a[1]===139)throw new Error("cannot append to compressed archives");if(!h)break e}let c=new St(a);if(!c.cksumValid)break;let u=512*Math.ceil((c.size||0)/512);if(r+u+512>o.size)break;r+=u,e.mtimeCache&&c.mtime&&e.mtimeCache.set(String(c.path),c.mtime)}s=!1,yw(e,n,r,i,t)}finally{if(s)try{p.closeSync(i)}catch{}}},"Ro"),yw=l((e,t,n,s,i)=>{let r=new bu(e.file,{fd:s,start:n});t.pipe(r),ww(t,i)},"go"),bw=l((e,t)=>{t=Array.from(t);let n=new dr(e),s=l((i,r,o)=>{let a=l((f,y)=>{f?p.close(i,m=>o(f)):o(null,y)},"a"),c=0;if(r===0)return a(null,0);let u=0,d=Buffer.alloc(512),h=l((f,y)=>{if(f||y===void 0)return a(f);if(u+=y,u<512&&y)return p.read(i,d,u,d.length-u,c+u,h);if(c===0&&d[0]===31&&d[1]===139)return a(new Error("cannot append to compressed archives"));if(u<512)return a(null,c);let m=new St(d);if(!m.cksumValid)return a(null,c);let b=512*Math.ceil((m.size??0)/512);if(c+b+512>r||(c+=b+512,c>=r))return a(null,c);e.mtimeCache&&m.mtime&&e.mtimeCache.set(String(m.path),m.mtime),u=0,p.read(i,d,0,512,c,h)},"y");p.read(i,d,0,512,c,h)},"i");return new Promise((i,r)=>{n.on("error",r);let o="r+",a=l((c,u)=>{if(c&&c.code==="ENOENT"&&o==="r+")return o="w+",p.open(e.file,o,a);if(c||!u)return r(c);p.fstat(u,(d,h)=>{if(d)return p.close(u,()=>r(d));s(u,h.size,(f,y)=>{if(f)return r(f);let m=new Hi(e.file,{fd:u,start:y});n.pipe(m),m.on("error",r),m.on("close",i),_w(n,t)})})},"a");p.open(e.file,o,a)})},"bo"),ww=l((e,t)=>{t.forEach(n=>{n.charAt(0)==="@"?Zi({file:F.resolve(e.cwd,n.slice(1)),sync:!0,noResume:!0,onReadEntry:l(s=>e.add(s),"onReadEntry")}):e.add(n)}),e.end()},"_o"),_w=l(async(e,t)=>{for(let n of t)n.charAt(0)==="@"?await Zi({file:F.resolve(String(e.cwd),n.slice(1)),noResume:!0,onReadEntry:l(s=>e.add(s),"onReadEntry")}):e.add(n);e.end()},"Oo"),js=bs(gw,bw,()=>{throw new TypeError("file is required")},()=>{throw new TypeError("file is required")},(e,t)=>{if(!Wy(e))throw new TypeError("file is required");if(e.gzip||e.brotli||e.zstd||e.file.endsWith(".br")||e.file.endsWith(".tbr"))throw new TypeError("cannot append to compressed archives");if(!t?.length)throw new TypeError("no paths specified to add/replace")}),K1=bs(js.syncFile,js.asyncFile,js.syncNoFile,js.asyncNoFile,(e,t=[])=>{js.validate?.(e,t),Aw(e)}),Aw=l(e=>{let t=e.filter;e.mtimeCache||(e.mtimeCache=new Map),e.filter=t?(n,s)=>t(n,s)&&!((e.mtimeCache?.get(n)??s.mtime??0)>(s.mtime??0)):(n,s)=>!((e.mtimeCache?.get(n)??s.mtime??0)>(s.mtime??0))},"xo");const Ua=20*512,kw=8**11-1;function bh(e,t){const n=new Date(Math.max(0,Math.floor(t))*1e3),s=new ur({mtime:n,noPax:!0,strict:!0}),i=[];s.on("data",a=>i.push(a));for(const a of e){if(!/^[\x21-\x7e]{1,100}$/.test(a.name)||a.name.startsWith("/"))throw new Error(`tar writer: unsupported member name ${JSON.stringify(a.name)}`);if(a.data.length>kw)throw new Error(`tar writer: member ${a.name} is too large for a ustar header`);const c=new St({path:a.name,type:"File",mode:420,uid:0,gid:0,uname:"",gname:"",size:a.data.length,mtime:n});c.encode();const u=new $u(c);s.add(u),u.end(Buffer.from(a.data.buffer,a.data.byteOffset,a.data.length))}s.end();const r=Buffer.concat(i),o=(Ua-r.length%Ua)%Ua;return o===0?r:Buffer.concat([r,Buffer.alloc(o)])}l(bh,"writeTar");const Fs=["prompt","model","tool_call","tool_result"],vw=["prompt","tool_result"],Ga="<<redacted>>";function wh(e){const t=new Set;for(const n of e){if(n.blob_refs.length>0)return[];for(const s of Fs)n[s]===Ga&&t.add(s)}return Fs.filter(n=>t.has(n))}l(wh,"redactedFields");const Ew=Buffer.from(JSON.stringify(Ga));function Sw(e,t){return t||!e.includes(Ew)?[]:wh(bn(e).entries.map(n=>n.row))}l(Sw,"redactedFieldsOf");const Tt="manifest.json",ht="manifest.sig",ft="journal/000000.jsonl",_h=/^blobs\/([0-9a-f]{64})$/,$w=new Set(["journal","journal/","blobs","blobs/"]),Ah=100,Wa=1e3;function kh(e,t=Bi){const n=typeof e=="string"?xw(e,t):e;if(n.length>t)throw new M("too_large",`receipt is ${n.length} bytes, over the ${t}-byte limit`);return py(n,t)}l(kh,"readReceiptBytes");function xw(e,t){const n=l(i=>i.code??i.message,"why");let s;try{s=(0,p.openSync)(e,p.constants.O_RDONLY|p.constants.O_NONBLOCK)}catch(i){throw i.code==="ENOENT"?new w(`${e}: no such receipt file`):new w(`${e}: cannot read receipt: ${n(i)}`)}try{const i=(0,p.fstatSync)(s);if(!i.isFile())throw new w(`${e}: not a regular file`);if(i.size>t)throw new M("too_large",`receipt is ${i.size} bytes, over the ${t}-byte limit`);let r=Buffer.allocUnsafe(Math.min(t+1,i.size+1)),o=0;for(;;){if(o===r.length){if(o>t)throw new M("too_large",`receipt grew past the ${t}-byte limit while it was read`);const c=Buffer.allocUnsafe(Math.min(t+1,r.length*2));r.copy(c,0,0,o),r=c}let a;try{a=(0,p.readSync)(s,r,o,r.length-o,null)}catch(c){throw new w(`${e}: cannot read receipt: ${n(c)}`)}if(a===0)return r.subarray(0,o);o+=a}}finally{(0,p.closeSync)(s)}}l(xw,"readCapped");function Iw(e){const t=e.name,n=JSON.stringify(t),s=t.split("/");if(t.startsWith("/")||/^[A-Za-z]:/.test(t)||t.includes("\\"))return{kind:"unsafe_member",message:`absolute or non-portable member name ${n}`,member:t};if(s.some(i=>i===".."))return{kind:"unsafe_member",message:`path traversal in member name ${n}`,member:t};if(t.includes("\0")||/[\x00-\x1f\x7f]/.test(t))return{kind:"unsafe_member",message:`control characters in member name ${n}`,member:t};if(e.type==="directory")return $w.has(t)?void 0:{kind:"unknown_member",message:`unexpected directory ${n}`,member:t};if(!(t===Tt||t===ht||t===ft||_h.test(t)))return{kind:"unknown_member",message:`unexpected member ${n} (a receipt holds manifest.json, manifest.sig, journal/000000.jsonl and blobs/<sha256>)`,member:t}}l(Iw,"nameFault");function vh(e){const t=[],n=new Set,s={blobs:new Map};let i,r=iu,o=0;try{for(const a of lu(e)){if(++o>r){t.push({kind:"too_many_members",message:`more than ${r} members: the manifest names ${r-5} blob(s), so a receipt holds at most ${r} (manifest, signature, journal, journal/ and blobs/ directories, one per blob)`});break}const c=Iw(a)??Cw(a,n);if(c!==void 0){if(t.push(c),t.length>=Ah){t.push({kind:"too_many_faults",message:`${Ah} layout faults; the rest of the archive was not examined`});break}continue}if(a.type!=="directory")if(a.name===Tt){s.manifest=a.data;try{i=Po(a.data),r=Math.max(o,5+i.blob_digests.length)}catch(u){if(!(u instanceof M))throw u}}else a.name===ht?s.signature=a.data:a.name===ft?s.journal=a.data:s.blobs.set(_h.exec(a.name)[1],a.data)}}catch(a){if(!(a instanceof M))throw a;t.push(gr(a))}return i===void 0?{members:s,faults:t}:{members:s,faults:t,manifest:i}}l(vh,"scanArchive");function Cw(e,t){const n=e.type==="directory"?e.name.replace(/\/$/,"")+"/":e.name;if(!t.has(n)){t.add(n);return}return{kind:"duplicate_member",message:`member ${JSON.stringify(e.name)} appears more than once`,member:e.name}}l(Cw,"duplicateFault");function Eh(e){let t=e.toString("latin1");if(t.endsWith(`
`)&&(t=t.slice(0,-1)),!/^[A-Za-z0-9+/]*={0,2}$/.test(t)||t.length%4!==0||t.length===0)throw new M("signature_not_base64","manifest.sig is not base64",ht);const n=Buffer.from(t,"base64");if(n.toString("base64")!==t)throw new M("signature_not_base64","manifest.sig is not canonical base64",ht);if(n.length!==64)throw new M("signature_wrong_length",`manifest.sig decodes to ${n.length} bytes; an Ed25519 signature is 64`,ht);return n}l(Eh,"decodeSignature");function gr(e){return e.member===void 0?{kind:e.kind,message:e.message}:{kind:e.kind,message:e.message,member:e.member}}l(gr,"faultOf");function V1(e,t={}){const{members:n,faults:s,manifest:i}=vh(kh(e,t.maxBytes));if(s.length>0)throw new ReceiptFormatError(s[0].kind,s[0].message,s[0].member);return Sh(n,i)}l(V1,"loadReceipt");function Sh(e,t){if(e.manifest===void 0)throw new M("missing_member","the receipt has no manifest.json",Tt);if(e.journal===void 0)throw new M("missing_member",`the receipt has no ${ft}`,ft);const n={manifest:t??Po(e.manifest),manifestBytes:e.manifest,journal:e.journal,blobs:e.blobs};return e.signature!==void 0&&(n.signature=Eh(e.signature)),n}l(Sh,"partsOf");function Bw(e,t={}){return Ms(e,t).verdict}l(Bw,"verifyReceipt");function Ms(e,t={}){const n={ok:!1,head_hash:xe,steps:0,signed:!1,signature_ok:null,key_id:null,blobs:{bundled:[],missing:[]},published:!1,redacted_fields:[],errors:[],fault_count:0},s=n.errors;let i;try{i=kh(e,t.maxBytes)}catch(b){if(!(b instanceof M))throw b;return s.push(gr(b)),n.fault_count=s.length,{verdict:n,receipt:void 0}}const r=vh(i);if(r.faults.length>0){for(const b of r.faults)s.push(b);return n.fault_count=s.length,{verdict:n,receipt:void 0}}const o=r.members;n.signed=o.signature!==void 0,n.blobs.bundled=[...o.blobs.keys()];let a=r.manifest;if(o.manifest===void 0)s.push({kind:"missing_member",message:"the receipt has no manifest.json",member:Tt});else if(a===void 0)try{a=Po(o.manifest)}catch(b){if(!(b instanceof M))throw b;s.push(gr(b))}const c=t.publicKeys??[];if(o.signature!==void 0){let b;try{b=Eh(o.signature)}catch(_){if(!(_ instanceof M))throw _;s.push(gr(_))}if(c.length===0)s.push({kind:"no_trusted_key",message:"the receipt is signed but no public key was given to check it (--public-key)",member:ht});else if(b!==void 0&&o.manifest!==void 0){const _=c.find(k=>iy(o.manifest,b,k));if(n.signature_ok=_!==void 0,n.key_id=_?.keyId??null,_===void 0){const k=c.find(S=>ty(o.manifest,b,S));s.push({kind:"signature_invalid",message:k===void 0?`the signature does not verify under any trusted key (${c.map(S=>S.keyId).join(", ")})`:`the signature does not verify under any trusted key: ${k.source} is the signer's PRIVATE seed, not its public key (give the public key; treat that file as leaked)`,member:ht})}}else b!==void 0&&(n.signature_ok=!1)}else c.length>0&&s.push({kind:"unsigned",message:"a trusted key was given but the receipt is not signed (no manifest.sig)",member:ht});let u,d=0,h=0;if(o.journal===void 0)s.push({kind:"missing_member",message:`the receipt has no ${ft}`,member:ft});else{const b=Ow(o.journal);for(const _ of b.faults){const k={kind:_.kind,message:Nc(_),member:ft};h+=(_.count??1)-1,_.line!==null&&(k.line=_.line),s.push(k)}d=b.omitted,n.head_hash=b.head,n.steps=b.steps,u=b.refs,n.redacted_fields=Sw(o.journal,b.refs.length>0),n.published=n.redacted_fields.length>0}a!==void 0&&u!==void 0&&(a.head_hash!==n.head_hash&&s.push({kind:"manifest_head_mismatch",message:`manifest head_hash ${a.head_hash}, the chain's head is ${n.head_hash}`,member:Tt}),a.steps!==n.steps&&s.push({kind:"manifest_steps_mismatch",message:`manifest steps ${a.steps}, the chain has ${n.steps}`,member:Tt}),a.blob_digests.length===u.length&&a.blob_digests.every((_,k)=>_===u[k])||s.push({kind:"blob_digests_mismatch",message:`manifest blob_digests (${a.blob_digests.length}) differ from the chain's blob_refs (${u.length}, first-occurrence order)`,member:Tt}));const f=a?.blob_digests??u??[],y=new Set(f);for(const[b,_]of o.blobs){const k=`blobs/${b}`;ae(_)!==b&&s.push({kind:"blob_digest_mismatch",message:"the blob's SHA-256 is not its name",member:k}),y.has(b)||s.push({kind:"unexpected_blob",message:"a bundled blob that no step refers to",member:k})}if(n.blobs.missing=f.filter(b=>!o.blobs.has(b)),t.requireBlobs)for(const b of n.blobs.missing)s.push({kind:"missing_blob",message:"a referenced blob is not bundled",member:`blobs/${b}`});if(t.expectedHead!==void 0&&t.expectedHead!==n.head_hash&&s.push({kind:"head_mismatch",message:`head ${n.head_hash}, expected ${t.expectedHead}`}),n.ok=s.length===0,n.fault_count=s.length+h+d,s.length>Wa||d>0){const b=Math.max(0,s.length-Wa)+d;s.length=Math.min(s.length,Wa),s.push({kind:"too_many_faults",message:`${b.toLocaleString("en-US")} more fault${b===1?"":"s"} not listed`})}let m;try{m=Sh(o,a)}catch(b){if(!(b instanceof M))throw b;m=void 0}return{verdict:n,receipt:m}}l(Ms,"inspectReceipt");function Ow(e){const t=Oc(e,{strict:!0});return{head:t.head_hash,steps:t.steps,refs:t.blob_refs,faults:t.errors,omitted:t.errors_omitted}}l(Ow,"walkReceiptJournal");function za(e,t){const n=t.member===void 0||/^[A-Za-z0-9._/-]+$/.test(t.member)?t.member:JSON.stringify(t.member);return`${n===void 0?e:`${e}:${n}${t.line===void 0?"":`:${t.line}`}`}: ${t.kind}: ${t.message}`}l(za,"describeReceiptFault");function $h(e,t,n,s){if(e===void 0)return;const i=ki(e.root,t,{actor:fd(e.env),resource_type:"journal",resource_id:n,details:{agent:n,...s}},{env:e.env});return i===void 0?void 0:`receipt written, but ${i}`}l($h,"auditReceipt");function X1(e){const t=[],n=Buffer.from(`
`);for(const s of e)t.push(s.canonical?s.bytes:Buffer.from(canonicalOfRead(rowValue(s.row)),"utf8"),n);return Buffer.concat(t)}l(X1,"canonicalJournalBytes");function Rw(e){return g().basename(g().dirname(g().resolve(e)))}l(Rw,"defaultAgentId");function xh(e,t,n,s){const i=Ay(e),r=[{name:Tt,data:i}];s.signKey!==void 0&&r.push({name:ht,data:Buffer.from(sy(i,s.signKey).toString("base64"),"latin1")}),r.push({name:ft,data:t});for(const[a,c]of n)r.push({name:`blobs/${a}`,data:c});let o=bh(r,_y(e.created_at));return s.gzip&&(o=(0,_o.gzipSync)(o,{level:6})),{bytes:o,signed:s.signKey!==void 0,key_id:s.signKey?.keyId??null}}l(xh,"packReceipt");function Ih(e,t,n,s,i=new Date){return{agent_id:ce(e,"agent id"),head_hash:t,steps:n,bernstein_version:zd,created_at:wy(i),blob_digests:s,format_version:Ri}}l(Ih,"newManifest");function Tw(e,t={}){const{result:n,bytes:s,blob_refs:i}=Dm(e);if(!n.ok){const y=n.errors.length>1?` (and ${n.errors.length-1} more fault${n.errors.length>2?"s":""})`:"";throw new N(`${pi(e,n.errors[0])}${y}`)}const r=t.agentId??Rw(e),o=st(g().dirname(g().resolve(e))),a=t.cas??(o===void 0?void 0:new nt(tt(o),!1)),c=[],u=[],d=[];for(const y of i){const m=a?.get(y);m===void 0?u.push(y):ae(m)!==y?(d.push(`CAS blob ${y} does not match its digest; left out of the receipt`),u.push(y)):c.push([y,m])}const h=Ih(r,n.head_hash,n.steps,i,t.now);return{...xh(h,s,c,t),manifest:h,blobs:{bundled:c.map(([y])=>y),missing:u},warnings:d}}l(Tw,"export_buildReceipt");function Ch(e){return/\.(gz|tgz)$/i.test(e)}l(Ch,"wantsGzip");function Bh(e,t){if(g().resolve(e)===g().resolve(t))throw new w(`${t}: the receipt would overwrite the journal`)}l(Bh,"refuseOverwritingJournal");function qa(e,t){const n=g().dirname(g().resolve(e));try{if((0,p.statSync)(e).isDirectory())throw new w(`${e}: is a directory`)}catch(r){if(r instanceof w)throw r}try{if(!(0,p.statSync)(n).isDirectory())throw new Error("not a directory")}catch{throw new w(`${e}: cannot write: the directory ${n} does not exist`)}uc(n,[new RegExp(`^\\.${im(g().basename(e))}\\.tmp-([0-9]+)-[0-9a-z]+$`)]);const s=g().join(n,`.${g().basename(e)}.tmp-${process.pid}-${Math.random().toString(36).slice(2)}`);let i;try{i=(0,p.openSync)(s,"wx",420)}catch(r){throw W(r)?X(r,e,"cannot write"):r}try{He(i,t),(0,p.fsyncSync)(i),(0,p.closeSync)(i),(0,p.renameSync)(s,e)}catch(r){try{(0,p.closeSync)(i)}catch{}try{(0,p.unlinkSync)(s)}catch{}throw W(r)?X(r,e,"cannot write"):r}gt(n)}l(qa,"export_writeFileAtomic");function Nw(e,t,n={}){Bh(e,t);const s=Tw(e,{...n,gzip:n.gzip??Ch(t)});qa(t,s.bytes);const i=$h(n.audit,"replay.export",s.manifest.agent_id,{receipt:g().resolve(t),head_hash:s.manifest.head_hash,steps:s.manifest.steps,signed:s.signed,key_id:s.key_id});return i!==void 0&&s.warnings.push(i),s}l(Nw,"exportReceipt");function jw(e){const t=e.split(",").map(s=>s.trim()),n=[];for(const s of t){if(!Fs.includes(s))throw new w(`--redact: ${JSON.stringify(s)} is not a redactable field (allowed: ${Fs.join(", ")})`);n.includes(s)||n.push(s)}return n}l(jw,"parseRedactFields");function Fw(e,t){let n=xe;const s=[];for(const i of e){const r=l((c,u)=>t.includes(c)&&u!==null?Ga:u,"pick"),o={prev_hash:n,input_hash:i.input_hash,model:r("model",i.model),prompt:r("prompt",i.prompt),tool_call:r("tool_call",i.tool_call),tool_result:r("tool_result",i.tool_result)},a=jr(o,!0);s.push(ke({...o,blob_refs:[],seq:i.seq,step_hash:a,ts:qs(i.ts)})),n=a}return{lines:Buffer.from(s.map(i=>`${i}
`).join(""),"utf8"),head:e.length>0?n:xe,steps:e.length}}l(Fw,"redactRows");function Mw(e){if(e.optIn!==!0)throw new w("publish: refusing without --opt-in (receipts stay local unless you explicitly opt in); nothing was written");const t=[...e.redact??vw];for(const n of t)if(!Fs.includes(n))throw new w(`publish: ${JSON.stringify(n)} is not a redactable field`);if(t.length===0)throw new w("publish: give at least one field to redact");return t}l(Mw,"checkOptIn");function Lw(e,t){const n=Mw(t),s=co(e),i=Fw(s.entries.map(c=>c.row),n),r=t.agentId??g().basename(g().dirname(g().resolve(e))),o=Ih(r,i.head,i.steps,[],t.now),a=xh(o,i.lines,[],t);return{bytes:a.bytes,manifest:o,original_head:s.head_hash,published_head:i.head,steps:i.steps,redacted:n,signed:a.signed,key_id:a.key_id,warnings:[]}}l(Lw,"publish_buildPublishedReceipt");function Pw(e,t,n){Bh(e,t);const s=Lw(e,{...n,gzip:n.gzip??Ch(t)});qa(t,s.bytes);const i=$h(n.audit,"replay.publish",s.manifest.agent_id,{receipt:g().resolve(t),original_head:s.original_head,published_head:s.published_head,steps:s.steps,redacted:s.redacted,signed:s.signed,key_id:s.key_id});return i!==void 0&&s.warnings.push(i),s}l(Pw,"publishReceipt");const Dw=/\.(tar|tar\.gz|tgz)$/i,Hw=l(e=>e.length>=2&&e[0]===31&&e[1]===139,"GZIP"),Qw=l(e=>e.length>=262&&e.toString("latin1",257,262)==="ustar","USTAR");function Uw(e){const t=(0,p.openSync)(e,"r");try{const n=Buffer.alloc(512),s=(0,p.readSync)(t,n,0,512,0);return n.subarray(0,s)}finally{(0,p.closeSync)(t)}}l(Uw,"headOf");function yr(e){if(Dw.test(e))return!0;try{if(!(0,p.statSync)(e).isFile())return!1;const t=Uw(e);return Hw(t)||Qw(t)}catch{return!1}}l(yr,"looksLikeReceipt");function jn(e,t){return e.signed?t===0?{status:"not_checked",holds:!1,key_id:null,text:"signature NOT checked (signed, but no trusted public key was given: --public-key FILE)",warn:!0}:e.signature_ok===!0?{status:"verified",holds:!0,key_id:e.key_id,text:`signature verified (key id ${e.key_id??"?"})`,warn:!1}:{status:"invalid",holds:!1,key_id:null,text:"signature INVALID: it does not verify under any trusted key",warn:!0}:t===0?{status:"unsigned",holds:!0,key_id:null,text:"unsigned",warn:!1}:{status:"unsigned_but_required",holds:!1,key_id:null,text:"unsigned, but a trusted key was given: a signature is required",warn:!0}}l(jn,"signatureVerdict");const Xe="provider_state_mutation",tn="provider_state_capability",Oh=["observed","declared-blind"],Gw=["STEPCHAIN_DETERMINISTIC_SEED","STEPCHAIN_REPLAY_RUN_ID","BERNSTEIN_DETERMINISTIC_SEED","BERNSTEIN_REPLAY_RUN_ID"];function Rh(e){return Gw.find(t=>(e[t]??"").trim()!=="")}l(Rh,"deterministicModeVar");const Ww=["pre_","before_"];function Ja(e){return ae(ke(e))}l(Ja,"canonicalSha256");function Th(e,t,n,s){const i={};for(const[r,o]of Object.entries(t))Ww.some(a=>r.startsWith(a))&&Object.defineProperty(i,r,{value:o,enumerable:!0,writable:!0,configurable:!0});return{kind:e,before_digest:Ja(i),after_digest:Ja(t),step_index:n,flagged:s}}l(Th,"mutationFromSignal");function Nh(e){return Ja({kind:e.kind,before_digest:e.before_digest,after_digest:e.after_digest,step_index:e.step_index})}l(Nh,"contentAddress");function jh(e,t){return new Map([["mutation_kind",e.kind],["before_digest",e.before_digest],["after_digest",e.after_digest],["step_index",e.step_index],["content_address",Nh(e)],["flagged",e.flagged],["agent_id",t]])}l(jh,"mutationPayload");function zw(e,t){return new Map([["adapter",e],["capability",t]])}l(zw,"capabilityPayload");function qw(e){const t=e.get("mutation_kind"),n=e.get("step_index"),s=e.get("content_address");if(typeof t!="string")return"mutation_kind is not a string";if(!pt(n))return"step_index is not an integer";const i=Nh({kind:t,before_digest:e.get("before_digest")??"",after_digest:e.get("after_digest")??"",step_index:n});if(s!==i)return`content address ${typeof s=="string"?s:JSON.stringify(s)} does not match its fields (expected ${i})`}l(qw,"checkMutationRow");const Fh="",Mh=["ts","elapsed_s","index","prev_hash","payload_hash","event_hash"],Jw=new Set(Mh),Ka=new Set([...Mh,"event"]);function Lh(e,t){const n=new Map;for(const[s,i]of t)Jw.has(s)||n.set(s,i);return n.set("event",e),ae(ke(n))}l(Lh,"computePayloadHash");function Ph(e,t,n,s){return ae(ke({prev_hash:e,event_type:t,payload_hash:n,index:s}))}l(Ph,"computeEventHash");function Kw(e){const t=new Map([["ts",qs(e.ts)],["elapsed_s",qs(e.elapsed_s)],["index",e.index],["event",e.event],["prev_hash",e.prev_hash],["payload_hash",e.payload_hash],["event_hash",e.event_hash]]);for(const[n,s]of e.payload)t.set(n,s);return t}l(Kw,"runRowValue");function Dh(e){return bp(Kw(e))}l(Dh,"encodeRunRow");function Yw(e){let t,n;try{t=le(e),n=ye(t,{objects:"map"})}catch(c){if(c instanceof Ie)return{kind:"malformed",reason:c.message};if(c instanceof RangeError)return{kind:"malformed",reason:"line too large or too deeply nested"};throw c}if(!(n instanceof Map))return{kind:"malformed",reason:"line is not a JSON object"};const s=l(c=>n.get(c),"get");for(const c of["event","prev_hash","payload_hash","event_hash"])if(typeof s(c)!="string")return{kind:"malformed",reason:`row has no string "${c}"`};const i=s("index");if(!pt(i)||typeof i=="bigint"||i<0)return{kind:"malformed",reason:'row has no non-negative integer "index"'};const r=new Map;for(const[c,u]of n)Ka.has(c)||r.set(c,u);const o={ts:Cr(s("ts"))??NaN,elapsed_s:Cr(s("elapsed_s"))??NaN,index:i,event:s("event"),prev_hash:s("prev_hash"),payload_hash:s("payload_hash"),event_hash:s("event_hash"),payload:r};let a;try{a=Ae(n,{sortKeys:!1,separators:"pretty",allowNonFinite:!0})===t}catch{a=!1}return{kind:"row",row:o,computedPayloadHash:Lh(o.event,n),canonical:a}}l(Yw,"readRunLine");const Fn=l(e=>e.length>16?e:JSON.stringify(e),"verify_short");function Ya(e,t={}){const n=new Ys(t.maxListed??Tr,(f,y)=>y.kind!=="flagged_mutation"),s=[],i=[],r=new Map;let o=Fh,a=0,c=0,u,d=!0,h=0;return Vs(e,0,e.length,(f,y,m,b)=>{h++;const _=e.subarray(f,y),k=Vw(_);if(k===void 0){t.strict&&n.add({line:h,index:null,kind:"non_canonical",message:"blank line"});return}const S=Yw(k),v=b!=="eof";if(S.kind==="malformed"){d=!1,n.add({line:h,index:null,kind:"malformed_json",message:S.reason});return}(k!==_||b!=="lf"&&b!=="eof")&&(S.canonical=!1);const{row:A}=S,x=a,E=l((C,I)=>{n.add({line:h,index:x,kind:C,message:I})},"fault"),B=Ph(o,A.event,S.computedPayloadHash,x);let $=!1;if(A.index!==x&&($=!0,E("index_mismatch",`index ${A.index}, expected ${x}`)),A.prev_hash!==o&&($=!0,E("prev_hash_mismatch",`chain break: prev_hash ${Fn(A.prev_hash)} does not match the previous event_hash ${Fn(o)}`)),A.payload_hash!==S.computedPayloadHash&&($=!0,E("payload_hash_mismatch",`payload tamper: stored payload_hash ${Fn(A.payload_hash)}, recomputed ${Fn(S.computedPayloadHash)}`)),A.event_hash!==B&&($=!0,E("event_hash_mismatch",`stored event_hash ${Fn(A.event_hash)}, recomputed ${Fn(B)}`)),$&&(d=!1,u??={index:x,expected:B,actual:A.event_hash}),t.strict&&!S.canonical&&E("non_canonical","line bytes are not json.dumps(row) of its values"),t.strict&&!v&&E("non_canonical","last line has no trailing newline"),A.event===Xe){c++;const C=qw(A.payload);C!==void 0&&E("content_address_mismatch",`${Xe}: ${C}`),A.payload.get("flagged")===!0&&(i.push(x),E("flagged_mutation",`flagged provider-side mutation (${String(A.payload.get("mutation_kind"))}) arrived in deterministic mode`))}else if(A.event===tn){const C=A.payload.get("adapter"),I=A.payload.get("capability");typeof C!="string"||typeof I!="string"||!Oh.includes(I)?E("bad_capability",`${tn}: needs a string adapter and capability observed or declared-blind`):r.has(C)&&r.get(C)!==I?E("capability_conflict",`adapter ${JSON.stringify(C)} recorded as ${r.get(C)} and as ${I} in one run`):r.set(C,I)}t.keepEntries!==!1&&s.push({line:h,row:A}),o=A.event_hash,a++}),{ok:n.total===0,chain_ok:d,count:a,steps:a,head_hash:o,divergent_index:u?.index??null,expected_hash:u?.expected??null,actual_hash:u?.actual??null,mutation_count:c,flagged_indices:i,capabilities:[...r].map(([f,y])=>({adapter:f,capability:y})),errors:n.list,fault_count:n.total,errors_omitted:n.omitted,entries:s}}l(Ya,"readRunJournalBytes");function Vw(e){let t=!0;for(let i=0;i<e.length&&t;i++){const r=e[i];(r<=32||r>=128)&&(t=!1)}if(t)return e.length===0?void 0:e;let n;try{n=le(e)}catch{return e}const s=un(n);if(s.length!==0)return s.length===n.length?e:Buffer.from(s,"utf8")}l(Vw,"strippedBytes");function Xw(e){let t;try{t=(0,p.statSync)(e)}catch{throw new w(`${e}: no such run journal`)}if(!t.isFile())throw new w(`${e}: not a regular file`);try{return(0,p.readFileSync)(e)}catch(n){throw new w(`${e}: cannot read: ${n.code??n.message}`)}}l(Xw,"readRunJournalFileBytes");function Hh(e,t={}){return Ya(Xw(e),t)}l(Hh,"readRunJournalFile");function Zw(e,t={}){const{entries:n,...s}=Hh(e,{...t,keepEntries:!1});return s}l(Zw,"verifyRunJournal");function Qh(e,t){const n=t.index===null?"":` at index ${t.index}`;return t.last_line===void 0||t.count===void 0?`${e}:${t.line}: ${t.kind}${n}: ${t.message}`:`${e}:${t.line}-${t.last_line}: ${t.kind}: ${t.count.toLocaleString("en-US")} faults on consecutive lines, the first${n}: ${t.message}`}l(Qh,"describeRunFault");function e_(e,t){const n=t.errors.map(s=>Qh(e,s));return t.errors_omitted>0&&n.push(`${e}: \u2026 and ${t.errors_omitted.toLocaleString("en-US")} more fault${t.errors_omitted===1?"":"s"} not listed`),n}l(e_,"describeRunFaults");const t_=".sdd/runtime/journal/*/000000.jsonl",n_=".sdd/runs/*/journal.jsonl",s_="**/*.receipt.tar, **/*.receipt.tar.gz, **/*.receipt.tgz";function Uh(e){return e.line===null||e.last_line===void 0||e.count===void 0?"":`${e.count.toLocaleString("en-US")} faults on lines ${e.line}-${e.last_line}, the first: `}l(Uh,"runOfFaults");function br(e){const t=e.split("/");return t.length>=2?t[t.length-2]:e}l(br,"workspace_idOfPath");function i_(e,t){return t<=1?0:(0,D.createHash)("sha256").update(e,"utf8").digest().readUInt32BE(0)%t}l(i_,"shardOf");const r_={deleted:"history_deleted",truncated:"history_truncated",rewritten:"history_rewritten"};function o_(e){const t=e.indexOf(`\r
`);if(t<0)return 0;let n=1;for(let s=e.indexOf(10);s>=0&&s<t;s=e.indexOf(10,s+1))n++;return n}l(o_,"crlfLine");const a_="git converted the line endings on checkout (core.autocrlf=true?), so every row differs from what was hashed; add `.sdd/** -text` (and your journal paths) to .gitattributes, or run `git config core.autocrlf false` before the checkout";async function l_(e){const t=g().resolve(e.root),n=e.shard!==void 0&&e.shard.count>1?e.shard:null,s=l(E=>n===null||i_(E,n.count)===n.index,"mine"),i={ok:!0,root:t,base:e.base??null,commit:await U0(t)??null,fetchedBase:!1,fetchedBlobs:0,verified:0,failed:0,heads:{},items:[],faults:[],matched:{journal:0,run:0,receipt:0},shard:n,trustedKeys:e.keySources??[]},r=l(E=>{i.faults.push(E)},"fault"),o=l((E,B,$,C,I)=>{C>0&&r({item:E,path:B,line:null,kind:"faults_not_listed",message:`${C.toLocaleString("en-US")} more fault${C===1?"":"s"} not listed (run \`stepchain ${E==="run"?"run verify":"verify"}\` on ${B})`,severity:I,id:$})},"omittedFaults"),a={journal:e.verifyJournals!==!1,run:e.verifyRuns!==!1,receipt:e.verifyReceipts!==!1},c={journal:Ii(e.journals??t_),run:Ii(e.runs??n_),receipt:Ii(e.receipts??s_)},u={journal:[],run:[],receipt:[]},d=new Set,h=e.dirCache??new Map,f=new Set;for(const E of["journal","run","receipt"]){if(!a[E])continue;const B=No(t,c[E],h);u[E]=B.files,i.matched[E]=B.files.length;for(const $ of B.links)d.has($.path)||!s($.path)||(d.add($.path),r({item:E,path:$.path,line:null,kind:"symlink",message:$.severity==="error"?`${$.path} is a symbolic link: stepchain never follows a link in the checkout (it could point at .git/config or /proc/self/environ)`:`${$.path} is a symbolic link to a directory: not searched (links in the checkout are never followed)`,severity:$.severity}))}const y=new Map,m=new Set;if(e.base!==void 0&&(a.journal||a.run)){i.fetchedBase=await L0(t,e.base,e.remote);const E=l(I=>a.journal&&os(c.journal,I)?"journal":a.run&&os(c.run,I)?"run":void 0,"kindOf"),B=await jo(t,e.base,I=>E(I)!==void 0);for(const I of B)m.add(I.path);const $=B.filter(I=>s(I.path));i.fetchedBlobs=await Hd(t,e.base,$.map(I=>I.oid));const C=await Qd(t,$.map(I=>I.oid));for(const I of $){const O=C.get(I.oid);O!==void 0&&y.set(I.path,{kind:E(I.path),bytes:O})}}const b=l((E,B,$,C)=>{const I=rs(t,B,C,f);if(I.kind==="file")return I.bytes;const O=I.kind==="symlink"?`${I.at} is a symbolic link: never followed`:I.kind==="too_large"?`${I.size} bytes, over the ${C??0}-byte limit`:I.kind==="missing"?"vanished while being checked":"not a regular file";r({item:E,path:B,line:null,kind:I.kind==="symlink"?"symlink":I.kind==="too_large"?"too_large":"unreadable",message:`${E==="run"?"run":E==="receipt"?"receipt":"agent"} ${$}: ${O}`,severity:"error",id:$})},"readItem"),_=l((E,B,$,C,I)=>{const O=o_(C);O!==0&&(I.ok=!1,r({item:E,path:B,line:O,kind:"crlf_line_endings",message:`${E==="run"?"run":"agent"} ${$}: lines end in CRLF from line ${O}: ${a_}`,severity:"error",id:$}))},"crlf"),k=l((E,B)=>{const $=y.get(E.path);if($===void 0)return;const C=Bd($.bytes,B,E.kind==="run"?"index":"seq");if(E.appendOnly=C.kind,C.ok)return;E.ok=!1,E.status=C.kind;const I=E.kind==="run"?`run ${E.id}`:`agent ${E.id}`,O=C.firstChangedSeq===null?"":` (first changed ${E.kind==="run"?"index":"seq"} ${C.firstChangedSeq})`;r({item:E.kind,path:E.path,line:C.line,kind:r_[C.kind],message:`${I}: ${C.message}${C.kind==="deleted"?O:""}; committed history must only be appended to`,severity:"error",id:E.id})},"checkHistory"),S=new Map,v=new Set,A=l((E,B)=>{const $=u[E].filter(O=>!m.has(O)&&!v.has(O)),C=l(O=>{if(!S.has(O)){const T=rs(t,O,void 0,f);S.set(O,T.kind==="file"?T.bytes:null)}return S.get(O)},"bytesOf"),I=$.find(O=>C(O)?.equals(B));if(I!==void 0)return I;if(!(B.lastIndexOf(10)<0))return $.find(O=>{const T=C(O);return T!==null&&Bd(B,T).ok})},"renameTarget"),x=l((E,B)=>{for(const[$,C]of y){if(C.kind!==E||B.has($))continue;const I=br($),O=d.has($)?void 0:A(E,C.bytes);if(O!==void 0){v.add(O),i.items.push({kind:E,path:$,id:I,steps:0,head:"",ok:!0,status:`renamed to ${O}`,appendOnly:"renamed",renamedTo:O});continue}const T={kind:E,path:$,id:I,steps:0,head:"",ok:!1,status:"deleted"};k(T,void 0),i.items.push(T)}},"goneFromBase");if(a.journal){const E=new Set(u.journal);for(const C of u.journal.filter(s)){const I=br(C),O=b("journal",C,I);if(O===void 0){i.items.push({kind:"journal",path:C,id:I,steps:0,head:"",ok:!1,status:"unreadable"});continue}const T=e.expectedHeads?.[I],U=Bc(O,T===void 0?{}:{expectedHead:T}),P={kind:"journal",path:C,id:I,steps:U.steps,head:U.head_hash,ok:U.ok,status:U.ok?"ok":"FAIL"};_("journal",C,I,O,P);for(const fe of U.errors)r({item:"journal",path:C,line:fe.kind==="head_mismatch"&&U.steps>0?U.steps:fe.line,kind:fe.kind,message:`agent ${I}: ${fe.kind}: ${Uh(fe)}${fe.message}`,severity:"error",id:I});o("journal",C,I,U.errors_omitted,"error"),k(P,O),!P.ok&&P.status==="ok"&&(P.status="FAIL"),P.ok&&be(I)&&(i.heads[I]=U.head_hash),i.items.push(P)}x("journal",E);const B=e.expectedHeads??{},$=new Set(u.journal.map(br));for(const C of Object.keys(B))$.has(C)||!s(`pin:${C}`)||r({item:"journal",path:e.expectedHeadsPath??".",line:null,kind:"head_mismatch",message:`agent ${C}: a head is pinned (${B[C]}) but no journal for this agent was found`,severity:"error",id:C})}if(a.run){const E=e.failOnFlaggedMutations!==!1,B=new Set(u.run);for(const $ of u.run.filter(s)){const C=br($),I=b("run",$,C);if(I===void 0){i.items.push({kind:"run",path:$,id:C,steps:0,head:"",ok:!1,status:"unreadable"});continue}const O=Ya(I,{keepEntries:!1}),T={kind:"run",path:$,id:C,steps:O.count,head:O.head_hash,ok:!0,status:"ok",mutations:O.mutation_count,flagged:O.flagged_indices.length};_("run",$,C,I,T);const U=O.flagged_indices.length;(O.fault_count>U||E&&U>0)&&(T.ok=!1);for(const P of O.errors){const fe=P.kind==="flagged_mutation"&&!E;r({item:"run",path:$,line:P.line,kind:P.kind,message:`run ${C}: ${P.kind}${P.index===null?"":` at index ${P.index}`}: ${Uh(P)}${P.message}`,severity:fe?"warning":"error",id:C})}o("run",$,C,O.errors_omitted,T.ok?"warning":"error"),T.ok?T.flagged&&(T.status=`ok (${T.flagged} flagged mutation${T.flagged===1?"":"s"})`):T.status="FAIL",k(T,I),i.items.push(T)}x("run",B)}if(a.receipt){const E=e.publicKeys??[];for(const B of u.receipt.filter(s)){let $=B.split("/").pop().replace(/\.receipt\.(tar|tar\.gz|tgz)$/,"");const C=b("receipt",B,$,Bi);if(C===void 0){i.items.push({kind:"receipt",path:B,id:$,steps:0,head:"",ok:!1,status:"unreadable"});continue}const{verdict:I,receipt:O}=Ms(C,E.length>0?{publicKeys:E}:{});O!==void 0&&($=O.manifest.agent_id);const T={kind:"receipt",path:B,id:$,steps:I.steps,head:I.head_hash,ok:!0,status:"ok",signed:I.signed,keyId:I.key_id};for(const P of I.errors){const fe=P.kind==="no_trusted_key"&&E.length===0;T.ok=!1;const Ws=P.member===void 0?"":` (${P.member}${P.line===void 0?"":`:${P.line}`})`;r({item:"receipt",path:B,line:null,kind:fe?"signature_not_checked":P.kind,message:fe?`receipt ${$}: ${jn(I,E.length).text.replace("--public-key FILE",e.keyHint??"public-keys")}`:`receipt ${$}: ${P.kind}: ${P.message}${Ws}`,severity:"error",id:$})}const U=I.errors.length>0&&I.errors.every(P=>P.kind==="no_trusted_key")&&E.length===0;T.ok?I.signed?T.status=`signed (${I.key_id})`:T.status="ok (unsigned)":T.status=U?"signature NOT checked":"FAIL",i.items.push(T)}}for(const E of i.items)E.ok?i.verified++:i.failed++;return i.ok=i.failed===0&&!i.faults.some(E=>E.severity==="error"),i}l(l_,"checkWorkspace");function c_(e){return{ok:e.ok,base:e.base,commit:e.commit,fetched_base:e.fetchedBase,fetched_blobs:e.fetchedBlobs,verified:e.verified,failed:e.failed,heads:e.heads,matched:e.matched,shard:e.shard,trusted_keys:e.trustedKeys.map(t=>({key_id:t.keyId,source:t.source})),items:e.items.map(t=>{const n={kind:t.kind,path:t.path,id:t.id,steps:t.steps,head:t.head,ok:t.ok,status:t.status};return t.appendOnly!==void 0&&(n.append_only=t.appendOnly),t.renamedTo!==void 0&&(n.renamed_to=t.renamedTo),t.signed!==void 0&&(n.signed=t.signed),t.keyId!==void 0&&(n.key_id=t.keyId),t.mutations!==void 0&&(n.mutations=t.mutations),t.flagged!==void 0&&(n.flagged=t.flagged),n}),faults:e.faults.map(t=>{const n={item:t.item,path:t.path,line:t.line,kind:t.kind,message:t.message,severity:t.severity};return t.id!==void 0&&(n.id=t.id),n})}}l(c_,"checkReportJson");function nn(e){return typeof e=="object"&&e!==null&&!Array.isArray(e)}l(nn,"isObj");const Gh=new Set(["journal","run","receipt"]);function Z1(e,t,n=""){const s=l(A=>{throw new InputError(`${t}: not a stepchain check report: ${A}`)},"bad");if(!nn(e))return s("not a JSON object");const i=l((A,x,E)=>typeof A[x]=="string"?A[x]:s(`${E}.${x} is not a string`),"str"),r=l((A,x,E)=>Number.isSafeInteger(A[x])&&A[x]>=0?A[x]:s(`${E}.${x} is not a count`),"int"),o=l((A,x,E)=>typeof A[x]=="boolean"?A[x]:s(`${E}.${x} is not true or false`),"bool"),a=l((A,x)=>Array.isArray(A[x])?A[x]:s(`${x} is not a list`),"arr"),c=a(e,"items").map((A,x)=>{const E=`items[${x}]`;if(!nn(A))return s(`${E} is not an object`);const B=i(A,"kind",E);Gh.has(B)||s(`${E}.kind is not journal, run or receipt`);const $={kind:B,path:i(A,"path",E),id:i(A,"id",E),steps:r(A,"steps",E),head:i(A,"head",E),ok:o(A,"ok",E),status:i(A,"status",E)};return typeof A.append_only=="string"&&($.appendOnly=A.append_only),typeof A.renamed_to=="string"&&($.renamedTo=A.renamed_to),typeof A.signed=="boolean"&&($.signed=A.signed),(typeof A.key_id=="string"||A.key_id===null)&&($.keyId=A.key_id),Number.isSafeInteger(A.mutations)&&($.mutations=A.mutations),Number.isSafeInteger(A.flagged)&&($.flagged=A.flagged),$}),u=a(e,"faults").map((A,x)=>{const E=`faults[${x}]`;if(!nn(A))return s(`${E} is not an object`);const B=i(A,"item",E);Gh.has(B)||s(`${E}.item is not journal, run or receipt`);const $=i(A,"severity",E);$!=="error"&&$!=="warning"&&s(`${E}.severity is not error or warning`);const C=A.line;C!==null&&!(Number.isSafeInteger(C)&&C>0)&&s(`${E}.line is not a line number`);const I={item:B,path:i(A,"path",E),line:C,kind:i(A,"kind",E),message:i(A,"message",E),severity:$};return typeof A.id=="string"&&(I.id=A.id),I}),d={};nn(e.heads)||s("heads is not an object");for(const[A,x]of Object.entries(e.heads))d[A]=typeof x=="string"?x:s(`heads.${A}`);let h=null;if(e.shard!==null&&e.shard!==void 0){const A=nn(e.shard)?e.shard:s("shard is not an object");h={index:r(A,"index","shard"),count:r(A,"count","shard")}}const f=nn(e.matched)?e.matched:{},y={journal:0,run:0,receipt:0};for(const A of["journal","run","receipt"])Number.isSafeInteger(f[A])&&(y[A]=f[A]);const m=Array.isArray(e.trusted_keys)?e.trusted_keys.filter(nn).map(A=>({keyId:String(A.key_id??""),source:String(A.source??"")})):[],b=e.base;b!==null&&typeof b!="string"&&s("base is not a commit id or null");const _=e.commit??null;_!==null&&!(typeof _=="string"&&/^[0-9a-f]{40,64}$/.test(_))&&s("commit is not a commit id or null");const k=r(e,"verified","report"),S=r(e,"failed","report"),v=c.filter(A=>A.ok).length;return(k!==v||S!==c.length-v)&&s(`verified ${k} and failed ${S} do not count its ${c.length} items`),{ok:o(e,"ok","report"),root:n,base:b,commit:_,fetchedBase:e.fetched_base===!0,fetchedBlobs:Number.isSafeInteger(e.fetched_blobs)?e.fetched_blobs:0,verified:k,failed:S,heads:d,items:c,faults:u,matched:y,shard:h,trustedKeys:m}}l(Z1,"checkReportFromJson");function ev(e,t="",n){const s=[],i=l((d,h,f)=>{s.push({item:"journal",path:d,line:null,kind:h,message:f,severity:"error"})},"shardFault"),r=[];for(const d of e){const h=d.report.commit;n===void 0||h===n?r.push(d):i(d.source,"shard_foreign",`${d.source}: made from commit ${h??"none"}, not this job's ${n}: not a report of this run's shards (a report.json committed to the repository, or left from another run?); not merged`)}const o=r.find(d=>d.report.shard!==null)?.report.shard?.count??1,a=new Map,c=r[0]?.report.base??null;for(const{source:d,report:h,reasons:f}of r){const y=h.shard??{index:0,count:1};y.count!==o?i(d,"shard_mismatch",`${d}: shard ${y.index+1} of ${y.count}, expected a shard of ${o}`):a.has(y.index)?i(d,"shard_repeated",`${d}: shard ${y.index+1} of ${o} is also in ${a.get(y.index)}`):a.set(y.index,d),h.base!==c&&i(d,"shard_mismatch",`${d}: checked against base ${h.base??"none"}, not ${c??"none"}`);const m=h.items.some(b=>!b.ok)||h.faults.some(b=>b.severity==="error");!h.ok&&!m&&i(d,"shard_failed",`${d}: shard ${y.index+1} of ${y.count} failed`+(f!==void 0&&f.length>0?`: ${f.join("; ")}`:" (see its job)"))}for(let d=0;d<o;d++)a.has(d)||i(".","shard_missing",`shard ${d+1} of ${o} sent no report (did its job fail before the check?)`);r.length===0&&e.length===0&&i(".","shard_missing","no shard reports were found");const u={ok:!0,root:t,base:c,commit:n??r[0]?.report.commit??null,fetchedBase:r.some(d=>d.report.fetchedBase),fetchedBlobs:r.reduce((d,h)=>d+h.report.fetchedBlobs,0),verified:0,failed:0,heads:{},items:r.flatMap(d=>d.report.items),faults:[...s,...r.flatMap(d=>d.report.faults)],matched:r[0]?.report.matched??{journal:0,run:0,receipt:0},shard:null,trustedKeys:r[0]?.report.trustedKeys??[]};for(const d of r)Object.assign(u.heads,d.report.heads);for(const d of u.items)d.ok?u.verified++:u.failed++;return u.ok=u.failed===0&&!u.faults.some(d=>d.severity==="error")&&r.every(d=>d.report.ok),u}l(ev,"mergeShardReports");const d_={journal:"journals",run:"runs",receipt:"receipts"};function u_(e,t){const n=[];for(const i of["journal","run","receipt"]){const r=t[i];r!==void 0&&r.length>0&&e.matched[i]===0&&n.push(`${d_[i]}: ${r.join(", ")} matched no file`)}const s=e.matched.journal+e.matched.run+e.matched.receipt;return n.length===0&&e.items.length===0&&s===0&&n.push("nothing was checked: no journal, run journal or receipt was found"),n}l(u_,"emptyFindings");class h_ extends nt{static{l(this,"WorkspaceCas")}root;constructor(t){super(tt(t),!1),this.root=t}has(t){return En(this.root,g().relative(this.root,this.pathOf(t))).kind==="file"}get(t){const n=rs(this.root,g().relative(this.root,this.pathOf(t)),Bi);return n.kind==="file"?n.bytes:void 0}}function tv(e){const t=path.resolve(e.root),n=scanFiles(t,globSet(e.journals??DEFAULT_JOURNALS)),s=n.files,i=new Map;for(const c of s)i.has(idOfPath(c))||i.set(idOfPath(c),c);const r=e.agents&&e.agents.length>0?e.agents:[...i.keys()];for(const c of r)if(!i.has(c))throw new InputError(`agent ${c}: no journal found (looked for ${[e.journals??DEFAULT_JOURNALS].flat().join(", ")})`);mkdirSync(e.outDir,{recursive:!0});const o={receipts:[],faults:[]};for(const c of n.links)c.severity==="error"&&o.faults.push({item:"journal",path:c.path,line:null,kind:"symlink",message:`${c.path} is a symbolic link: stepchain never follows a link in the checkout; no receipt`,severity:"error"});const a=new h_(t);for(const c of r){const u=i.get(c),d=path.join(t,u),h=lstatUnder(t,u);if(h.kind!=="file"){o.faults.push({item:"journal",path:u,line:null,kind:h.kind==="symlink"?"symlink":"unreadable",message:`agent ${c}: no receipt: ${h.kind==="symlink"?`${h.at} is a symbolic link`:"not a regular file"}`,severity:"error",id:c});continue}const f=path.join(e.outDir,`${c}.receipt.tar`),y={agentId:c,...e.signKey===void 0?{}:{signKey:e.signKey},...e.now===void 0?{}:{now:e.now},gzip:!1,cas:a};try{if(e.redact){const m=buildPublishedReceipt(d,{...y,optIn:!0,redact:e.redact});writeFileAtomic(f,m.bytes),o.receipts.push({agent_id:c,journal:u,file:f,head_hash:m.published_head,steps:m.steps,signed:m.signed,key_id:m.key_id,original_head:m.original_head,redacted:m.redacted})}else{const m=buildReceipt(d,y);writeFileAtomic(f,m.bytes),o.receipts.push({agent_id:c,journal:u,file:f,head_hash:m.manifest.head_hash,steps:m.manifest.steps,signed:m.signed,key_id:m.key_id})}}catch(m){if(!(m instanceof StepchainError))throw m;const b=/:(\d+): /.exec(m.message.replace(d,u));o.faults.push({item:"journal",path:u,line:b?Number(b[1]):null,kind:m instanceof InputError?"input_error":"export_refused",message:`agent ${c}: no receipt: ${m.message.split(d).join(u)}`,severity:"error",id:c})}}return o}l(tv,"exportAllReceipts");function f_(e,t){let n;try{n=Yn(e)}catch(i){throw new w(`${t}: not JSON: ${i.message}`)}if(!G(n))throw new w(`${t}: expected a JSON object {agent_id: head}`);const s={};for(const[i,r]of Object.entries(n)){if(ce(i,`agent id in ${t}`),!Pe(r))throw new w(`${t}: the head of ${i} is not 64 lowercase hex digits`);s[i]=r}return s}l(f_,"parseExpectedHeads");const p_=`"use strict";
(() => {
  var __defProp = Object.defineProperty;
  var __defNormalProp = (obj, key, value) => key in obj ? __defProp(obj, key, { enumerable: true, configurable: true, writable: true, value }) : obj[key] = value;
  var __publicField = (obj, key, value) => __defNormalProp(obj, typeof key !== "symbol" ? key + "" : key, value);

  // src/canonical/value.ts
  var JsonFloat = class {
    constructor(value) {
      __publicField(this, "value", value);
    }
  };
  function isJsonObject(v) {
    return typeof v === "object" && v !== null && !Array.isArray(v) && !(v instanceof JsonFloat) && !(v instanceof Map);
  }
  function numericValue(v) {
    if (typeof v === "number") return v;
    if (typeof v === "bigint") return Number(v);
    if (v instanceof JsonFloat) return v.value;
    return void 0;
  }
  function isJsonInteger(v) {
    return typeof v === "number" && Number.isInteger(v) || typeof v === "bigint";
  }
  function setKey(obj, key, value) {
    if (key === "__proto__") {
      Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
    } else {
      obj[key] = value;
    }
  }

  // src/canonical/float-repr.ts
  function pythonFloatRepr(x) {
    if (Number.isNaN(x)) return "NaN";
    if (x === Infinity) return "Infinity";
    if (x === -Infinity) return "-Infinity";
    if (x === 0) return Object.is(x, -0) ? "-0.0" : "0.0";
    const sign = x < 0 ? "-" : "";
    const s = String(Math.abs(x));
    const ei = s.indexOf("e");
    const mantissa = ei < 0 ? s : s.slice(0, ei);
    const shift = ei < 0 ? 0 : Number(s.slice(ei + 1));
    const dot = mantissa.indexOf(".");
    const intPart = dot < 0 ? mantissa : mantissa.slice(0, dot);
    const all = dot < 0 ? mantissa : intPart + mantissa.slice(dot + 1);
    let lead = 0;
    while (lead < all.length - 1 && all.charCodeAt(lead) === 48) lead++;
    let end = all.length;
    while (end > lead + 1 && all.charCodeAt(end - 1) === 48) end--;
    const digits = all.slice(lead, end);
    const exp = intPart.length + shift - lead - 1;
    if (exp >= -4 && exp < 16) {
      if (exp >= 0) {
        const whole = digits.length > exp + 1 ? digits.slice(0, exp + 1) : digits.padEnd(exp + 1, "0");
        const frac = digits.length > exp + 1 ? digits.slice(exp + 1) : "0";
        return \`\${sign}\${whole}.\${frac}\`;
      }
      return \`\${sign}0.\${"0".repeat(-exp - 1)}\${digits}\`;
    }
    const m = digits.length === 1 ? digits : \`\${digits[0]}.\${digits.slice(1)}\`;
    const e = \`\${exp < 0 ? "-" : "+"}\${String(Math.abs(exp)).padStart(2, "0")}\`;
    return \`\${sign}\${m}e\${e}\`;
  }

  // src/canonical/limits.ts
  var MAX_NESTING = 900;

  // src/canonical/key-order.ts
  function compareCodePoints(a, b) {
    const n = Math.min(a.length, b.length);
    let i = 0;
    while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
    if (i === n) return a.length - b.length;
    const ca = a.charCodeAt(i);
    const cb = b.charCodeAt(i);
    if (ca < 55296 && cb < 55296) return ca - cb;
    const low = (c) => c >= 56320 && c <= 57343;
    if (i > 0 && (low(ca) || low(cb))) {
      const prev = a.charCodeAt(i - 1);
      if (prev >= 55296 && prev <= 56319) i--;
    }
    return (a.codePointAt(i) ?? 0) - (b.codePointAt(i) ?? 0);
  }

  // src/canonical/encode.ts
  var CanonicalEncodeError = class extends Error {
    constructor() {
      super(...arguments);
      __publicField(this, "name", "CanonicalEncodeError");
    }
  };
  var SHORT_ESCAPES = {
    34: '\\\\"',
    92: "\\\\\\\\",
    10: "\\\\n",
    13: "\\\\r",
    9: "\\\\t",
    8: "\\\\b",
    12: "\\\\f"
  };
  var PLAIN_ASCII = /^[\\x20\\x21\\x23-\\x5b\\x5d-\\x7e]*$/;
  function encodeString(s) {
    if (PLAIN_ASCII.test(s)) return \`"\${s}"\`;
    let out = '"';
    let run = 0;
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (c >= 32 && c <= 126 && c !== 34 && c !== 92) continue;
      out += s.slice(run, i);
      out += SHORT_ESCAPES[c] ?? \`\\\\u\${c.toString(16).padStart(4, "0")}\`;
      run = i + 1;
    }
    return \`\${out}\${s.slice(run)}"\`;
  }
  function encodeNumber(n, allowNonFinite) {
    if (Number.isInteger(n)) {
      return Number.isSafeInteger(n) ? String(n === 0 ? 0 : n) : BigInt(n).toString();
    }
    if (!Number.isFinite(n) && !allowNonFinite) {
      throw new CanonicalEncodeError(\`\${String(n)} is not allowed in a written value (JSON has no NaN or Infinity)\`);
    }
    return pythonFloatRepr(n);
  }
  function encode(value, options = {}) {
    const sortKeys = options.sortKeys ?? true;
    const pretty = options.separators === "pretty";
    const itemSep = pretty ? ", " : ",";
    const keySep = pretty ? ": " : ":";
    const allowNonFinite = options.allowNonFinite ?? false;
    const maxNesting = options.maxNesting ?? MAX_NESTING;
    const entriesOf2 = (obj) => {
      const entries = obj instanceof Map ? [...obj] : Object.entries(obj);
      if (sortKeys) entries.sort((x, y) => compareCodePoints(x[0], y[0]));
      return entries;
    };
    const walk2 = (v, depth) => {
      switch (typeof v) {
        case "string":
          return encodeString(v);
        case "number":
          return encodeNumber(v, allowNonFinite);
        case "bigint":
          return v.toString();
        case "boolean":
          return v ? "true" : "false";
        case "object": {
          if (v === null) return "null";
          if (v instanceof JsonFloat) {
            if (!Number.isFinite(v.value) && !allowNonFinite) {
              throw new CanonicalEncodeError(
                \`\${String(v.value)} is not allowed in a written value (JSON has no NaN or Infinity)\`
              );
            }
            return pythonFloatRepr(v.value);
          }
          if (depth >= maxNesting) throw new CanonicalEncodeError(\`value nested deeper than \${maxNesting} levels\`);
          if (Array.isArray(v)) {
            let out2 = "[";
            for (let i = 0; i < v.length; i++) {
              if (i > 0) out2 += itemSep;
              out2 += walk2(v[i], depth + 1);
            }
            return \`\${out2}]\`;
          }
          let out = "{";
          let first = true;
          for (const [k, item] of entriesOf2(v)) {
            if (item === void 0) continue;
            if (!first) out += itemSep;
            first = false;
            out += encodeString(k) + keySep + walk2(item, depth + 1);
          }
          return \`\${out}}\`;
        }
        default:
          throw new CanonicalEncodeError(\`a \${typeof v} has no JSON encoding\`);
      }
    };
    return walk2(value, 0);
  }
  function canonical(value) {
    return encode(value);
  }
  function canonicalOfRead(value) {
    return encode(value, { allowNonFinite: true });
  }

  // src/canonical/parse.ts
  var JsonParseError = class extends Error {
    constructor(reason, column) {
      super(\`\${reason} at column \${column}\`);
      __publicField(this, "reason", reason);
      __publicField(this, "column", column);
      __publicField(this, "name", "JsonParseError");
    }
  };
  function parseError(reason, column) {
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    try {
      return new JsonParseError(reason, column);
    } finally {
      Error.stackTraceLimit = limit;
    }
  }
  var MAX_INT_DIGITS = 4300;
  var NUMBER = /-?(?:0|[1-9][0-9]*)(\\.[0-9]+)?([eE][-+]?[0-9]+)?/y;
  var utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
  function decodeUtf8(bytes) {
    try {
      return utf8.decode(bytes);
    } catch {
      throw parseError("invalid UTF-8", 1);
    }
  }
  function parse(text, options = {}) {
    const asMap = options.objects === "map";
    let i = 0;
    const n = text.length;
    const fail = (reason, at = i) => {
      throw parseError(reason, at + 1);
    };
    const skipWs = () => {
      while (i < n) {
        const c = text.charCodeAt(i);
        if (c === 32 || c === 10 || c === 13 || c === 9) i++;
        else break;
      }
    };
    const parseString = () => {
      const start = ++i;
      let out = "";
      let run = start;
      for (; ; ) {
        if (i >= n) fail("unterminated string", start - 1);
        const c = text.charCodeAt(i);
        if (c === 34) {
          out += text.slice(run, i);
          i++;
          return out;
        }
        if (c < 32) fail("invalid control character in string");
        if (c !== 92) {
          i++;
          continue;
        }
        out += text.slice(run, i);
        const e = text.charCodeAt(i + 1);
        switch (e) {
          case 34:
            out += '"';
            break;
          case 92:
            out += "\\\\";
            break;
          case 47:
            out += "/";
            break;
          case 98:
            out += "\\b";
            break;
          case 102:
            out += "\\f";
            break;
          case 110:
            out += "\\n";
            break;
          case 114:
            out += "\\r";
            break;
          case 116:
            out += "	";
            break;
          case 117: {
            const hex = text.slice(i + 2, i + 6);
            if (!/^[0-9a-fA-F]{4}$/.test(hex)) fail("invalid \\\\uXXXX escape");
            out += String.fromCharCode(parseInt(hex, 16));
            i += 4;
            break;
          }
          default:
            fail("invalid escape");
        }
        i += 2;
        run = i;
      }
    };
    const parseNumber = () => {
      NUMBER.lastIndex = i;
      const m = NUMBER.exec(text);
      if (m === null) return fail("expecting value");
      const token = m[0];
      const start = i;
      i += token.length;
      if (m[1] !== void 0 || m[2] !== void 0) {
        const f = Number(token);
        return Number.isInteger(f) || Object.is(f, -0) || !Number.isFinite(f) ? new JsonFloat(f) : f;
      }
      const digits = token.length - (token.charCodeAt(0) === 45 ? 1 : 0);
      if (digits <= 15) return Number(token);
      if (digits > MAX_INT_DIGITS) fail(\`integer of \${digits} digits exceeds the \${MAX_INT_DIGITS}-digit limit\`, start);
      const big = BigInt(token);
      return big >= BigInt(Number.MIN_SAFE_INTEGER) && big <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(big) : big;
    };
    const parseValue = (depth) => {
      skipWs();
      const c = text.charCodeAt(i);
      if ((c === 123 || c === 91) && depth >= MAX_NESTING) fail(\`nested deeper than \${MAX_NESTING} levels\`);
      switch (c) {
        case 34:
          return parseString();
        case 123: {
          i++;
          const obj = {};
          const map = /* @__PURE__ */ new Map();
          skipWs();
          if (text.charCodeAt(i) === 125) {
            i++;
            return asMap ? map : obj;
          }
          for (; ; ) {
            skipWs();
            if (text.charCodeAt(i) !== 34) fail("expecting property name enclosed in double quotes");
            const key = parseString();
            skipWs();
            if (text.charCodeAt(i) !== 58) fail("expecting ':' delimiter");
            i++;
            const value2 = parseValue(depth + 1);
            if (asMap) map.set(key, value2);
            else setKey(obj, key, value2);
            skipWs();
            const d = text.charCodeAt(i);
            if (d === 44) {
              i++;
              continue;
            }
            if (d === 125) {
              i++;
              return asMap ? map : obj;
            }
            fail("expecting ',' delimiter");
          }
        }
        case 91: {
          i++;
          const arr = [];
          skipWs();
          if (text.charCodeAt(i) === 93) {
            i++;
            return arr;
          }
          for (; ; ) {
            arr.push(parseValue(depth + 1));
            skipWs();
            const d = text.charCodeAt(i);
            if (d === 44) {
              i++;
              continue;
            }
            if (d === 93) {
              i++;
              return arr;
            }
            fail("expecting ',' delimiter");
          }
        }
        case 110:
          return literal("null", null);
        case 116:
          return literal("true", true);
        case 102:
          return literal("false", false);
        case 78:
          return literal("NaN", new JsonFloat(NaN));
        case 73:
          return literal("Infinity", new JsonFloat(Infinity));
        case 45:
          if (text.startsWith("-Infinity", i)) return literal("-Infinity", new JsonFloat(-Infinity));
          return parseNumber();
        default:
          if (c >= 48 && c <= 57) return parseNumber();
          return fail("expecting value");
      }
    };
    const literal = (word, value2) => {
      if (!text.startsWith(word, i)) fail("expecting value");
      i += word.length;
      return value2;
    };
    const value = parseValue(0);
    skipWs();
    if (i < n) fail("extra data");
    return value;
  }

  // src/replay/changes.ts
  var same = (a, b) => canonicalOfRead(a) === canonicalOfRead(b);
  function entriesOf(v) {
    return v instanceof Map ? [...v] : Object.entries(v);
  }
  var isObj = (v) => isJsonObject(v) || v instanceof Map;
  function walk(pathName, a, b, depth, out) {
    if (same(a, b)) return;
    if (depth < 4 && isObj(a) && isObj(b)) {
      const left = new Map(entriesOf(a));
      const right = new Map(entriesOf(b));
      for (const [k, v] of left) {
        const p = \`\${pathName}.\${k}\`;
        if (!right.has(k)) out.push({ path: p, kind: "removed", before: v });
        else walk(p, v, right.get(k), depth + 1, out);
      }
      for (const [k, v] of right) if (!left.has(k)) out.push({ path: \`\${pathName}.\${k}\`, kind: "added", after: v });
      return;
    }
    out.push({ path: pathName, kind: "changed", before: a, after: b });
  }
  function valueChanges(pathName, a, b) {
    const out = [];
    walk(pathName, a, b, 0, out);
    return out;
  }

  // src/report/client/display.ts
  var SHORT = {
    34: '\\\\"',
    92: "\\\\\\\\",
    10: "\\\\n",
    13: "\\\\r",
    9: "\\\\t",
    8: "\\\\b",
    12: "\\\\f"
  };
  function displayString(s) {
    let out = '"';
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      const hi = c >= 55296 && c <= 56319;
      const lo = c >= 56320 && c <= 57343;
      if (hi && i + 1 < s.length && s.charCodeAt(i + 1) >= 56320 && s.charCodeAt(i + 1) <= 57343) {
        out += s.slice(i, i + 2);
        i++;
      } else if (SHORT[c] !== void 0) out += SHORT[c];
      else if (c < 32 || c === 127 || hi || lo || c === 8232 || c === 8233)
        out += \`\\\\u\${c.toString(16).padStart(4, "0")}\`;
      else out += s[i];
    }
    return \`\${out}"\`;
  }
  function display(v, indent = 2) {
    const walk2 = (x, pad) => {
      if (x === void 0) return "(absent)";
      if (typeof x === "string") return displayString(x);
      if (x instanceof JsonFloat) return pythonFloatRepr(x.value);
      if (x === null || typeof x !== "object") return canonicalOfRead(x);
      const inner = indent > 0 ? pad + " ".repeat(indent) : "";
      const sep = indent > 0 ? ",\\n" : ", ";
      let out = "";
      if (Array.isArray(x)) {
        if (x.length === 0) return "[]";
        for (let i = 0; i < x.length; i++) out += (i > 0 ? sep : "") + inner + walk2(x[i], inner);
        return indent > 0 ? \`[
\${out}
\${pad}]\` : \`[\${out}]\`;
      }
      const pairs = x instanceof Map ? [...x] : Object.entries(x);
      if (pairs.length === 0) return "{}";
      for (let i = 0; i < pairs.length; i++)
        out += \`\${i > 0 ? sep : ""}\${inner}\${displayString(pairs[i][0])}: \${walk2(pairs[i][1], inner)}\`;
      return indent > 0 ? \`{
\${out}
\${pad}}\` : \`{\${out}}\`;
    };
    try {
      return walk2(v, "");
    } catch (e) {
      if (e instanceof RangeError) return "(nested too deeply to lay out here: see the raw line)";
      throw e;
    }
  }
  function fieldText(v) {
    return v === void 0 ? "" : typeof v === "string" ? v : display(v, 0);
  }
  function orderedRow(text) {
    try {
      const v = parse(text, { objects: "map" });
      return v instanceof Map ? v : null;
    } catch {
      return null;
    }
  }
  function preview(s, max) {
    return s.length <= max ? s : \`\${s.slice(0, max - 1)}\\u2026\`;
  }

  // node_modules/@noble/hashes/_u64.js
  var U32_MASK64 = /* @__PURE__ */ (() => BigInt(2 ** 32 - 1))();
  var _32n = /* @__PURE__ */ BigInt(32);
  function fromBig(n, le = false) {
    if (le)
      return { h: Number(n & U32_MASK64), l: Number(n >> _32n & U32_MASK64) };
    return { h: Number(n >> _32n & U32_MASK64) | 0, l: Number(n & U32_MASK64) | 0 };
  }
  function split(lst, le = false) {
    const len = lst.length;
    let Ah = new Uint32Array(len);
    let Al = new Uint32Array(len);
    for (let i = 0; i < len; i++) {
      const { h, l } = fromBig(lst[i], le);
      [Ah[i], Al[i]] = [h, l];
    }
    return [Ah, Al];
  }
  var fromNumH = (n) => n / 2 ** 32 | 0;
  var fromNumL = (n) => n >>> 0;
  function setU64FromNum(view, byteOffset, n, isLE) {
    const h = fromNumH(n);
    const l = fromNumL(n);
    view.setUint32(byteOffset, isLE ? l : h, isLE);
    view.setUint32(byteOffset + 4, isLE ? h : l, isLE);
  }
  var shrSH = (h, _l, s) => h >>> s;
  var shrSL = (h, l, s) => h << 32 - s | l >>> s;
  var rotrSH = (h, l, s) => h >>> s | l << 32 - s;
  var rotrSL = (h, l, s) => h << 32 - s | l >>> s;
  var rotrBH = (h, l, s) => h << 64 - s | l >>> s - 32;
  var rotrBL = (h, l, s) => h >>> s - 32 | l << 64 - s;
  function add(Ah, Al, Bh, Bl) {
    const l = (Al >>> 0) + (Bl >>> 0);
    return { h: Ah + Bh + (l / 2 ** 32 | 0) | 0, l: l | 0 };
  }
  var add3L = (Al, Bl, Cl) => (Al >>> 0) + (Bl >>> 0) + (Cl >>> 0);
  var add3H = (low, Ah, Bh, Ch) => Ah + Bh + Ch + (low / 2 ** 32 | 0) | 0;
  var add4L = (Al, Bl, Cl, Dl) => (Al >>> 0) + (Bl >>> 0) + (Cl >>> 0) + (Dl >>> 0);
  var add4H = (low, Ah, Bh, Ch, Dh) => Ah + Bh + Ch + Dh + (low / 2 ** 32 | 0) | 0;
  var add5L = (Al, Bl, Cl, Dl, El) => (Al >>> 0) + (Bl >>> 0) + (Cl >>> 0) + (Dl >>> 0) + (El >>> 0);
  var add5H = (low, Ah, Bh, Ch, Dh, Eh) => Ah + Bh + Ch + Dh + Eh + (low / 2 ** 32 | 0) | 0;

  // node_modules/@noble/hashes/utils.js
  function isBytes(a) {
    return a instanceof Uint8Array || ArrayBuffer.isView(a) && a.constructor.name === "Uint8Array" && "BYTES_PER_ELEMENT" in a && a.BYTES_PER_ELEMENT === 1;
  }
  var atitle = (title) => title ? \`"\${title}" \` : "";
  function anumber(n, title = "") {
    if (typeof n !== "number")
      throw new TypeError(atitle(title) + "expected number, got " + typeof n);
    if (!Number.isSafeInteger(n) || n < 0)
      throw new RangeError(atitle(title) + "expected integer >= 0, got " + n);
    return n;
  }
  function abytes(value, length, title = "") {
    if (isBytes(value) && (length === void 0 || value.length === length))
      return value;
    if (length !== void 0)
      anumber(length, "length");
    const bytes = isBytes(value);
    const ofLen = length !== void 0 ? \` of length \${length}\` : "";
    const got = bytes ? \`length=\${value.length}\` : \`type=\${typeof value}\`;
    const message = atitle(title) + "expected Uint8Array" + ofLen + ", got " + got;
    if (!bytes)
      throw new TypeError(message);
    throw new RangeError(message);
  }
  var aobject = (value, label) => {
    if (value === null || typeof value !== "object" || Array.isArray(value))
      throw new TypeError((label === "object" ? "" : \`"\${label}" \`) + "expected object, got type=" + typeof value);
  };
  var aopts = (value, label) => {
    aobject(value, label);
    const proto = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null)
      throw new TypeError(\`"\${label}" expected plain object\`);
    if (Object.hasOwn(value, "__proto__"))
      throw new TypeError(\`"\${label}.__proto__" is not allowed\`);
  };
  function aexists(instance, checkFinished = true) {
    if (instance.destroyed)
      throw new Error("hash was destroyed");
    if (checkFinished && instance.finished)
      throw new Error("digest() was already called");
  }
  function aoutput(out, instance) {
    abytes(out, void 0, "output");
    const min = instance.outputLen;
    if (!(out.length >= min)) {
      throw new RangeError('"output" expected length >= ' + min);
    }
  }
  function clean(...arrays) {
    for (let i = 0; i < arrays.length; i++) {
      arrays[i].fill(0);
    }
  }
  function createView(arr) {
    return new DataView(arr.buffer, arr.byteOffset, arr.byteLength);
  }
  function rotr(word, shift) {
    return word << 32 - shift | word >>> shift;
  }
  var hasHexBuiltin = /* @__PURE__ */ (() => (
    // @ts-ignore
    typeof Uint8Array.from([]).toHex === "function" && typeof Uint8Array.fromHex === "function"
  ))();
  var hexes = /* @__PURE__ */ Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));
  function bytesToHex(bytes) {
    abytes(bytes);
    if (hasHexBuiltin)
      return bytes.toHex();
    let hex = "";
    for (let i = 0; i < bytes.length; i++) {
      hex += hexes[bytes[i]];
    }
    return hex;
  }
  function checkOpts(defaults, opts, title = "opts") {
    aopts(defaults, "defaults");
    if (opts !== void 0)
      aopts(opts, title);
    const merged = Object.assign(/* @__PURE__ */ Object.create(null), defaults, opts);
    return merged;
  }
  function createHasher(hashCons, info = {}) {
    if (typeof hashCons !== "function")
      throw new TypeError('"hashCons" expected function, got type=' + typeof hashCons);
    info = checkOpts({}, info, "info");
    const hashC = (msg, opts) => hashCons(opts).update(msg).digest();
    const tmp = hashCons(void 0);
    hashC.outputLen = tmp.outputLen;
    hashC.blockLen = tmp.blockLen;
    hashC.canXOF = tmp.canXOF;
    hashC.create = (opts) => hashCons(opts);
    Object.assign(hashC, info);
    return Object.freeze(hashC);
  }
  var oidNist = (suffix) => ({
    // Current NIST hashAlgs suffixes used here fit in one DER subidentifier octet.
    // Larger suffix values would need base-128 OID encoding and a different length byte.
    oid: Uint8Array.from([6, 9, 96, 134, 72, 1, 101, 3, 4, 2, suffix])
  });

  // node_modules/@noble/hashes/_md.js
  function Chi(a, b, c) {
    return a & b ^ ~a & c;
  }
  function Maj(a, b, c) {
    return a & b ^ a & c ^ b & c;
  }
  var HashMD = class {
    constructor(blockLen, outputLen, padOffset, isLE) {
      __publicField(this, "blockLen");
      __publicField(this, "outputLen");
      __publicField(this, "canXOF", false);
      __publicField(this, "padOffset");
      __publicField(this, "isLE");
      // For partial updates less than block size
      __publicField(this, "buffer");
      __publicField(this, "view");
      __publicField(this, "finished", false);
      __publicField(this, "length", 0);
      __publicField(this, "pos", 0);
      __publicField(this, "destroyed", false);
      this.blockLen = blockLen;
      this.outputLen = outputLen;
      this.padOffset = padOffset;
      this.isLE = isLE;
      this.buffer = new Uint8Array(blockLen);
      this.view = createView(this.buffer);
    }
    update(data) {
      aexists(this);
      abytes(data);
      const { view, buffer, blockLen } = this;
      const len = data.length;
      let processed = false;
      for (let pos = 0; pos < len; ) {
        const take = Math.min(blockLen - this.pos, len - pos);
        if (take === blockLen) {
          const dataView = createView(data);
          for (; blockLen <= len - pos; pos += blockLen)
            this.process(dataView, pos);
          processed = true;
          continue;
        }
        buffer.set(pos === 0 && take === len ? data : data.subarray(pos, pos + take), this.pos);
        this.pos += take;
        pos += take;
        if (this.pos === blockLen) {
          this.process(view, 0);
          this.pos = 0;
          processed = true;
        }
      }
      this.length += data.length;
      if (processed)
        this.roundClean();
      return this;
    }
    digestInto(out) {
      aexists(this);
      aoutput(out, this);
      this.finished = true;
      const { buffer, view, blockLen, isLE } = this;
      let { pos } = this;
      buffer[pos++] = 128;
      buffer.fill(0, pos);
      if (this.padOffset > blockLen - pos) {
        this.process(view, 0);
        buffer.fill(0);
      }
      setU64FromNum(view, blockLen - 8, this.length * 8, isLE);
      this.process(view, 0);
      this.roundClean();
      const oview = out === buffer ? view : createView(out);
      const len = this.outputLen;
      const outLen = len / 4;
      const state = this.get();
      if (len % 4 || outLen > state.length)
        throw new Error("invalid outputLen");
      for (let i = 0; i < outLen; i++)
        oview.setUint32(4 * i, state[i], isLE);
    }
    digest() {
      const { buffer, outputLen } = this;
      this.digestInto(buffer);
      const res = buffer.slice(0, outputLen);
      this.destroy();
      return res;
    }
    _cloneIntoMeta(to) {
      const { buffer, length, finished, destroyed, pos } = this;
      to.destroyed = destroyed;
      to.finished = finished;
      to.length = length;
      to.pos = pos;
      if (pos)
        to.buffer.set(buffer);
      return to;
    }
    clone() {
      return this._cloneInto();
    }
  };
  var SHA256_IV = /* @__PURE__ */ Uint32Array.from([
    1779033703,
    3144134277,
    1013904242,
    2773480762,
    1359893119,
    2600822924,
    528734635,
    1541459225
  ]);
  var SHA512_IV = /* @__PURE__ */ Uint32Array.from([
    1779033703,
    4089235720,
    3144134277,
    2227873595,
    1013904242,
    4271175723,
    2773480762,
    1595750129,
    1359893119,
    2917565137,
    2600822924,
    725511199,
    528734635,
    4215389547,
    1541459225,
    327033209
  ]);

  // node_modules/@noble/hashes/sha2.js
  var SHA256_K = /* @__PURE__ */ Uint32Array.from([
    1116352408,
    1899447441,
    3049323471,
    3921009573,
    961987163,
    1508970993,
    2453635748,
    2870763221,
    3624381080,
    310598401,
    607225278,
    1426881987,
    1925078388,
    2162078206,
    2614888103,
    3248222580,
    3835390401,
    4022224774,
    264347078,
    604807628,
    770255983,
    1249150122,
    1555081692,
    1996064986,
    2554220882,
    2821834349,
    2952996808,
    3210313671,
    3336571891,
    3584528711,
    113926993,
    338241895,
    666307205,
    773529912,
    1294757372,
    1396182291,
    1695183700,
    1986661051,
    2177026350,
    2456956037,
    2730485921,
    2820302411,
    3259730800,
    3345764771,
    3516065817,
    3600352804,
    4094571909,
    275423344,
    430227734,
    506948616,
    659060556,
    883997877,
    958139571,
    1322822218,
    1537002063,
    1747873779,
    1955562222,
    2024104815,
    2227730452,
    2361852424,
    2428436474,
    2756734187,
    3204031479,
    3329325298
  ]);
  var SHA256_W = /* @__PURE__ */ new Uint32Array(64);
  var SHA2_32B = class extends HashMD {
    constructor(outputLen, IV) {
      super(64, outputLen, 8, false);
      // We cannot use array here since array allows indexing by variable
      // which means optimizer/compiler cannot use registers.
      // Numeric initializers matter: starting the fields as \`undefined\` changes
      // V8's field representation and makes sha256 3x slower (measured).
      __publicField(this, "A", 0);
      __publicField(this, "B", 0);
      __publicField(this, "C", 0);
      __publicField(this, "D", 0);
      __publicField(this, "E", 0);
      __publicField(this, "F", 0);
      __publicField(this, "G", 0);
      __publicField(this, "H", 0);
      this.A = IV[0] | 0;
      this.B = IV[1] | 0;
      this.C = IV[2] | 0;
      this.D = IV[3] | 0;
      this.E = IV[4] | 0;
      this.F = IV[5] | 0;
      this.G = IV[6] | 0;
      this.H = IV[7] | 0;
    }
    get() {
      const { A, B, C, D, E, F, G: G2, H } = this;
      return [A, B, C, D, E, F, G2, H];
    }
    // prettier-ignore
    set(A, B, C, D, E, F, G2, H) {
      this.A = A | 0;
      this.B = B | 0;
      this.C = C | 0;
      this.D = D | 0;
      this.E = E | 0;
      this.F = F | 0;
      this.G = G2 | 0;
      this.H = H | 0;
    }
    _cloneInto(to) {
      (to || (to = new this.constructor())).set(...this.get());
      return this._cloneIntoMeta(to);
    }
    process(view, offset) {
      for (let i = 0; i < 16; i++, offset += 4)
        SHA256_W[i] = view.getUint32(offset, false);
      for (let i = 16; i < 64; i++) {
        const W15 = SHA256_W[i - 15];
        const W2 = SHA256_W[i - 2];
        const s0 = rotr(W15, 7) ^ rotr(W15, 18) ^ W15 >>> 3;
        const s1 = rotr(W2, 17) ^ rotr(W2, 19) ^ W2 >>> 10;
        SHA256_W[i] = s1 + SHA256_W[i - 7] + s0 + SHA256_W[i - 16] | 0;
      }
      let { A, B, C, D, E, F, G: G2, H } = this;
      for (let i = 0; i < 64; i++) {
        const sigma1 = rotr(E, 6) ^ rotr(E, 11) ^ rotr(E, 25);
        const T1 = H + sigma1 + Chi(E, F, G2) + SHA256_K[i] + SHA256_W[i] | 0;
        const sigma0 = rotr(A, 2) ^ rotr(A, 13) ^ rotr(A, 22);
        const T2 = sigma0 + Maj(A, B, C) | 0;
        H = G2;
        G2 = F;
        F = E;
        E = D + T1 | 0;
        D = C;
        C = B;
        B = A;
        A = T1 + T2 | 0;
      }
      A = A + this.A | 0;
      B = B + this.B | 0;
      C = C + this.C | 0;
      D = D + this.D | 0;
      E = E + this.E | 0;
      F = F + this.F | 0;
      G2 = G2 + this.G | 0;
      H = H + this.H | 0;
      this.set(A, B, C, D, E, F, G2, H);
    }
    roundClean() {
      clean(SHA256_W);
    }
    destroy() {
      this.destroyed = true;
      this.set(0, 0, 0, 0, 0, 0, 0, 0);
      clean(this.buffer);
    }
  };
  var _SHA256 = class extends SHA2_32B {
    constructor() {
      super(32, SHA256_IV);
    }
  };
  var K512 = /* @__PURE__ */ (() => split([
    "0x428a2f98d728ae22",
    "0x7137449123ef65cd",
    "0xb5c0fbcfec4d3b2f",
    "0xe9b5dba58189dbbc",
    "0x3956c25bf348b538",
    "0x59f111f1b605d019",
    "0x923f82a4af194f9b",
    "0xab1c5ed5da6d8118",
    "0xd807aa98a3030242",
    "0x12835b0145706fbe",
    "0x243185be4ee4b28c",
    "0x550c7dc3d5ffb4e2",
    "0x72be5d74f27b896f",
    "0x80deb1fe3b1696b1",
    "0x9bdc06a725c71235",
    "0xc19bf174cf692694",
    "0xe49b69c19ef14ad2",
    "0xefbe4786384f25e3",
    "0x0fc19dc68b8cd5b5",
    "0x240ca1cc77ac9c65",
    "0x2de92c6f592b0275",
    "0x4a7484aa6ea6e483",
    "0x5cb0a9dcbd41fbd4",
    "0x76f988da831153b5",
    "0x983e5152ee66dfab",
    "0xa831c66d2db43210",
    "0xb00327c898fb213f",
    "0xbf597fc7beef0ee4",
    "0xc6e00bf33da88fc2",
    "0xd5a79147930aa725",
    "0x06ca6351e003826f",
    "0x142929670a0e6e70",
    "0x27b70a8546d22ffc",
    "0x2e1b21385c26c926",
    "0x4d2c6dfc5ac42aed",
    "0x53380d139d95b3df",
    "0x650a73548baf63de",
    "0x766a0abb3c77b2a8",
    "0x81c2c92e47edaee6",
    "0x92722c851482353b",
    "0xa2bfe8a14cf10364",
    "0xa81a664bbc423001",
    "0xc24b8b70d0f89791",
    "0xc76c51a30654be30",
    "0xd192e819d6ef5218",
    "0xd69906245565a910",
    "0xf40e35855771202a",
    "0x106aa07032bbd1b8",
    "0x19a4c116b8d2d0c8",
    "0x1e376c085141ab53",
    "0x2748774cdf8eeb99",
    "0x34b0bcb5e19b48a8",
    "0x391c0cb3c5c95a63",
    "0x4ed8aa4ae3418acb",
    "0x5b9cca4f7763e373",
    "0x682e6ff3d6b2b8a3",
    "0x748f82ee5defb2fc",
    "0x78a5636f43172f60",
    "0x84c87814a1f0ab72",
    "0x8cc702081a6439ec",
    "0x90befffa23631e28",
    "0xa4506cebde82bde9",
    "0xbef9a3f7b2c67915",
    "0xc67178f2e372532b",
    "0xca273eceea26619c",
    "0xd186b8c721c0c207",
    "0xeada7dd6cde0eb1e",
    "0xf57d4f7fee6ed178",
    "0x06f067aa72176fba",
    "0x0a637dc5a2c898a6",
    "0x113f9804bef90dae",
    "0x1b710b35131c471b",
    "0x28db77f523047d84",
    "0x32caab7b40c72493",
    "0x3c9ebe0a15c9bebc",
    "0x431d67c49c100d4c",
    "0x4cc5d4becb3e42b6",
    "0x597f299cfc657e2a",
    "0x5fcb6fab3ad6faec",
    "0x6c44198c4a475817"
  ].map((n) => BigInt(n))))();
  var SHA512_Kh = /* @__PURE__ */ (() => K512[0])();
  var SHA512_Kl = /* @__PURE__ */ (() => K512[1])();
  var SHA512_W_H = /* @__PURE__ */ new Uint32Array(80);
  var SHA512_W_L = /* @__PURE__ */ new Uint32Array(80);
  var SHA2_64B = class extends HashMD {
    constructor(outputLen, IV) {
      super(128, outputLen, 16, false);
      // We cannot use array here since array allows indexing by variable
      // which means optimizer/compiler cannot use registers.
      // h -- high 32 bits, l -- low 32 bits
      // Numeric initializers matter: starting the fields as \`undefined\` changes
      // V8's field representation and slows hashing down (measured on sha256).
      __publicField(this, "Ah", 0);
      __publicField(this, "Al", 0);
      __publicField(this, "Bh", 0);
      __publicField(this, "Bl", 0);
      __publicField(this, "Ch", 0);
      __publicField(this, "Cl", 0);
      __publicField(this, "Dh", 0);
      __publicField(this, "Dl", 0);
      __publicField(this, "Eh", 0);
      __publicField(this, "El", 0);
      __publicField(this, "Fh", 0);
      __publicField(this, "Fl", 0);
      __publicField(this, "Gh", 0);
      __publicField(this, "Gl", 0);
      __publicField(this, "Hh", 0);
      __publicField(this, "Hl", 0);
      this.Ah = IV[0] | 0;
      this.Al = IV[1] | 0;
      this.Bh = IV[2] | 0;
      this.Bl = IV[3] | 0;
      this.Ch = IV[4] | 0;
      this.Cl = IV[5] | 0;
      this.Dh = IV[6] | 0;
      this.Dl = IV[7] | 0;
      this.Eh = IV[8] | 0;
      this.El = IV[9] | 0;
      this.Fh = IV[10] | 0;
      this.Fl = IV[11] | 0;
      this.Gh = IV[12] | 0;
      this.Gl = IV[13] | 0;
      this.Hh = IV[14] | 0;
      this.Hl = IV[15] | 0;
    }
    // prettier-ignore
    get() {
      const { Ah, Al, Bh, Bl, Ch, Cl, Dh, Dl, Eh, El, Fh, Fl, Gh, Gl, Hh, Hl } = this;
      return [Ah, Al, Bh, Bl, Ch, Cl, Dh, Dl, Eh, El, Fh, Fl, Gh, Gl, Hh, Hl];
    }
    // prettier-ignore
    set(Ah, Al, Bh, Bl, Ch, Cl, Dh, Dl, Eh, El, Fh, Fl, Gh, Gl, Hh, Hl) {
      this.Ah = Ah | 0;
      this.Al = Al | 0;
      this.Bh = Bh | 0;
      this.Bl = Bl | 0;
      this.Ch = Ch | 0;
      this.Cl = Cl | 0;
      this.Dh = Dh | 0;
      this.Dl = Dl | 0;
      this.Eh = Eh | 0;
      this.El = El | 0;
      this.Fh = Fh | 0;
      this.Fl = Fl | 0;
      this.Gh = Gh | 0;
      this.Gl = Gl | 0;
      this.Hh = Hh | 0;
      this.Hl = Hl | 0;
    }
    _cloneInto(to) {
      (to || (to = new this.constructor())).set(...this.get());
      return this._cloneIntoMeta(to);
    }
    process(view, offset) {
      for (let i = 0; i < 16; i++, offset += 4) {
        SHA512_W_H[i] = view.getUint32(offset);
        SHA512_W_L[i] = view.getUint32(offset += 4);
      }
      for (let i = 16; i < 80; i++) {
        const W15h = SHA512_W_H[i - 15] | 0;
        const W15l = SHA512_W_L[i - 15] | 0;
        const s0h = rotrSH(W15h, W15l, 1) ^ rotrSH(W15h, W15l, 8) ^ shrSH(W15h, W15l, 7);
        const s0l = rotrSL(W15h, W15l, 1) ^ rotrSL(W15h, W15l, 8) ^ shrSL(W15h, W15l, 7);
        const W2h = SHA512_W_H[i - 2] | 0;
        const W2l = SHA512_W_L[i - 2] | 0;
        const s1h = rotrSH(W2h, W2l, 19) ^ rotrBH(W2h, W2l, 61) ^ shrSH(W2h, W2l, 6);
        const s1l = rotrSL(W2h, W2l, 19) ^ rotrBL(W2h, W2l, 61) ^ shrSL(W2h, W2l, 6);
        const SUMl = add4L(s0l, s1l, SHA512_W_L[i - 7], SHA512_W_L[i - 16]);
        const SUMh = add4H(SUMl, s0h, s1h, SHA512_W_H[i - 7], SHA512_W_H[i - 16]);
        SHA512_W_H[i] = SUMh | 0;
        SHA512_W_L[i] = SUMl | 0;
      }
      let { Ah, Al, Bh, Bl, Ch, Cl, Dh, Dl, Eh, El, Fh, Fl, Gh, Gl, Hh, Hl } = this;
      for (let i = 0; i < 80; i++) {
        const sigma1h = rotrSH(Eh, El, 14) ^ rotrSH(Eh, El, 18) ^ rotrBH(Eh, El, 41);
        const sigma1l = rotrSL(Eh, El, 14) ^ rotrSL(Eh, El, 18) ^ rotrBL(Eh, El, 41);
        const CHIh = Eh & Fh ^ ~Eh & Gh;
        const CHIl = El & Fl ^ ~El & Gl;
        const T1ll = add5L(Hl, sigma1l, CHIl, SHA512_Kl[i], SHA512_W_L[i]);
        const T1h = add5H(T1ll, Hh, sigma1h, CHIh, SHA512_Kh[i], SHA512_W_H[i]);
        const T1l = T1ll | 0;
        const sigma0h = rotrSH(Ah, Al, 28) ^ rotrBH(Ah, Al, 34) ^ rotrBH(Ah, Al, 39);
        const sigma0l = rotrSL(Ah, Al, 28) ^ rotrBL(Ah, Al, 34) ^ rotrBL(Ah, Al, 39);
        const MAJh = Ah & Bh ^ Ah & Ch ^ Bh & Ch;
        const MAJl = Al & Bl ^ Al & Cl ^ Bl & Cl;
        Hh = Gh | 0;
        Hl = Gl | 0;
        Gh = Fh | 0;
        Gl = Fl | 0;
        Fh = Eh | 0;
        Fl = El | 0;
        ({ h: Eh, l: El } = add(Dh | 0, Dl | 0, T1h | 0, T1l | 0));
        Dh = Ch | 0;
        Dl = Cl | 0;
        Ch = Bh | 0;
        Cl = Bl | 0;
        Bh = Ah | 0;
        Bl = Al | 0;
        const All = add3L(T1l, sigma0l, MAJl);
        Ah = add3H(All, T1h, sigma0h, MAJh);
        Al = All | 0;
      }
      ({ h: Ah, l: Al } = add(this.Ah | 0, this.Al | 0, Ah | 0, Al | 0));
      ({ h: Bh, l: Bl } = add(this.Bh | 0, this.Bl | 0, Bh | 0, Bl | 0));
      ({ h: Ch, l: Cl } = add(this.Ch | 0, this.Cl | 0, Ch | 0, Cl | 0));
      ({ h: Dh, l: Dl } = add(this.Dh | 0, this.Dl | 0, Dh | 0, Dl | 0));
      ({ h: Eh, l: El } = add(this.Eh | 0, this.El | 0, Eh | 0, El | 0));
      ({ h: Fh, l: Fl } = add(this.Fh | 0, this.Fl | 0, Fh | 0, Fl | 0));
      ({ h: Gh, l: Gl } = add(this.Gh | 0, this.Gl | 0, Gh | 0, Gl | 0));
      ({ h: Hh, l: Hl } = add(this.Hh | 0, this.Hl | 0, Hh | 0, Hl | 0));
      this.set(Ah, Al, Bh, Bl, Ch, Cl, Dh, Dl, Eh, El, Fh, Fl, Gh, Gl, Hh, Hl);
    }
    roundClean() {
      clean(SHA512_W_H, SHA512_W_L);
    }
    destroy() {
      this.destroyed = true;
      clean(this.buffer);
      this.set(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
    }
  };
  var _SHA512 = class extends SHA2_64B {
    constructor() {
      super(64, SHA512_IV);
    }
  };
  var sha256 = /* @__PURE__ */ createHasher(
    () => new _SHA256(),
    /* @__PURE__ */ oidNist(1)
  );
  var sha512 = /* @__PURE__ */ createHasher(
    () => new _SHA512(),
    /* @__PURE__ */ oidNist(3)
  );

  // src/report/client/hash.ts
  var ZERO_HASH = "0".repeat(64);
  var HEX64 = /^[0-9a-f]{64}$/;
  var utf82 = new TextEncoder();
  function sha256Hex(data) {
    return bytesToHex(sha256(typeof data === "string" ? utf82.encode(data) : data));
  }
  function isSha256Hex(s) {
    return typeof s === "string" && HEX64.test(s);
  }

  // node_modules/@noble/ed25519/index.js
  var freeze = Object.freeze;
  var P = 0x7fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffedn;
  var N = 0x1000000000000000000000000000000014def9dea2f79cd65812631a5cf5d3edn;
  var _d = 0x52036cee2b6ffe738cc740797779e89800700a4d4141d8ab75eb4dca135978a3n;
  var Gx = 0x216936d3cd6e53fec0a4e231fdd6dc5c692cc7609525a7b2c9562d608f25d51an;
  var Gy = 0x6666666666666666666666666666666666666666666666666666666666666658n;
  var _a = P - 1n;
  var ed25519_CURVE = freeze({
    p: P,
    n: N,
    h: 8n,
    a: _a,
    d: _d,
    Gx,
    Gy
  });
  var LEN = 32;
  var isBytes2 = (a) => {
    return a instanceof Uint8Array || ArrayBuffer.isView(a) && a.constructor.name === "Uint8Array" && a.BYTES_PER_ELEMENT === 1;
  };
  var abytes2 = (value, length, title = "") => {
    if (isBytes2(value) && (length === void 0 || value.length === length))
      return value;
    const bytes = isBytes2(value);
    const ofLen = length !== void 0 ? \` of length \${length}\` : "";
    const got = bytes ? \`length=\${value.length}\` : \`type=\${typeof value}\`;
    const message = (title ? \`"\${title}" \` : "") + "expected Uint8Array" + ofLen + ", got " + got;
    if (!bytes)
      throw new TypeError(message);
    throw new RangeError(message);
  };
  var snapshotBytes = (value, title = "", length) => Uint8Array.from(abytes2(value, length, title));
  var padh = (n, pad) => n.toString(16).padStart(pad, "0");
  var bytesToHex2 = (bytes) => {
    let hex = "";
    for (const byte of abytes2(bytes))
      hex += padh(byte, 2);
    return hex;
  };
  var hexToBytes = (hex) => {
    const e = "hex invalid";
    if (typeof hex !== "string")
      throw new TypeError(e);
    if (hex.length % 2 || !/^[\\da-f]*$/i.test(hex))
      throw new RangeError(e);
    const array = new Uint8Array(hex.length / 2);
    for (let ai = 0, hi = 0; ai < array.length; ai++, hi += 2) {
      const n1 = hex.charCodeAt(hi);
      const n2 = hex.charCodeAt(hi + 1);
      array[ai] = ((n1 & 15) + (n1 >> 6) * 9) * 16 + (n2 & 15) + (n2 >> 6) * 9;
    }
    return array;
  };
  var concatBytes = (...arrays) => {
    let sum = 0;
    for (const a of arrays)
      sum += abytes2(a).length;
    const res = new Uint8Array(sum);
    let pad = 0;
    for (const a of arrays) {
      res.set(a, pad);
      pad += a.length;
    }
    return res;
  };
  var arange = (n, min, max, msg = "bad number: out of range") => {
    if (typeof n !== "bigint")
      throw new TypeError(msg);
    if (min <= n && n < max)
      return n;
    throw new RangeError(msg);
  };
  var mod = (a, b = P) => (a %= b) >= 0n ? a : b + a;
  var P_MASK = (1n << 255n) - 1n;
  var modP = (num) => {
    if (num < 0n)
      throw new RangeError("negative coordinate");
    let r = (num >> 255n) * 19n + (num & P_MASK);
    r = (r >> 255n) * 19n + (r & P_MASK);
    return r % P;
  };
  var modN = (a) => mod(a, N);
  var invert = (number, modulo) => {
    if (number === 0n)
      throw new Error("invert: expected non-zero number");
    if (modulo <= 1n)
      throw new Error("invert: expected modulus > 1, got " + modulo);
    let a = mod(number, modulo);
    let b = modulo;
    let x = 0n, u = 1n;
    while (a !== 0n) {
      const q = b / a;
      const r = b - a * q;
      const m = x - u * q;
      b = a, a = r, x = u, u = m;
    }
    const gcd = b;
    if (gcd !== 1n)
      throw new Error("invert: does not exist");
    return mod(x, modulo);
  };
  var _hash = (name) => {
    const fn = hashes[name];
    if (typeof fn !== "function")
      throw new Error("hashes." + name + " not set");
    return fn;
  };
  var callHash = (name, ...m) => abytes2(_hash(name)(concatBytes(...m)), 64, "digest");
  var apoint = (p) => {
    if (p instanceof Point)
      return p;
    throw new TypeError("Point expected");
  };
  var B256 = 2n ** 256n;
  var _Point = class _Point {
    // Constructor only bounds-checks and freezes XYZT coordinates; it does not prove the point is
    // on-curve or that T matches X*Y/Z.
    constructor(X, Y, Z, T) {
      __publicField(this, "X");
      __publicField(this, "Y");
      __publicField(this, "Z");
      __publicField(this, "T");
      const max = B256;
      this.X = arange(X, 0n, max);
      this.Y = arange(Y, 0n, max);
      this.Z = arange(Z, 1n, max);
      this.T = arange(T, 0n, max);
      freeze(this);
    }
    static CURVE() {
      return ed25519_CURVE;
    }
    static fromAffine(p) {
      return new _Point(p.x, p.y, 1n, modP(p.x * p.y));
    }
    /** RFC8032 5.1.3: Uint8Array to Point. */
    static fromBytes(bytes, zip215 = false) {
      const normed = snapshotBytes(bytes, "point", LEN);
      const lastByte = normed[31];
      normed[31] = lastByte & ~128;
      const y = bytesToNumberLE(normed);
      if (!zip215)
        arange(y, 0n, P);
      const y2 = modP(y * y);
      const u = mod(y2 - 1n);
      const v = modP(_d * y2 + 1n);
      let { isValid, value: x } = uvRatio(u, v);
      if (!isValid)
        throw new Error("bad point: y not sqrt");
      const isLastByteOdd = !!(lastByte & 128);
      if (!zip215 && x === 0n && isLastByteOdd)
        throw new Error("bad point: x==0, isLastByteOdd");
      if (isLastByteOdd !== !!(x & 1n))
        x = mod(-x);
      return new _Point(x, y, 1n, modP(x * y));
    }
    static fromHex(hex, zip215) {
      return _Point.fromBytes(hexToBytes(hex), zip215);
    }
    get x() {
      return this.toAffine().x;
    }
    get y() {
      return this.toAffine().y;
    }
    /** Checks if the point is valid and on-curve. */
    assertValidity() {
      const a = _a;
      const d = _d;
      const p = this;
      if (p.is0())
        throw new Error("bad point: ZERO");
      const { X, Y, Z, T } = p;
      const X2 = modP(X * X);
      const Y2 = modP(Y * Y);
      const Z2 = modP(Z * Z);
      const Z4 = modP(Z2 * Z2);
      const aX2 = modP(X2 * a);
      const left = modP(Z2 * (aX2 + Y2));
      const right = mod(Z4 + modP(d * modP(X2 * Y2)));
      if (left !== right)
        throw new Error("bad point: equation left != right (1)");
      const XY = modP(X * Y);
      const ZT = modP(Z * T);
      if (XY !== ZT)
        throw new Error("bad point: equation left != right (2)");
      return this;
    }
    /** Equality check: compare points P&Q. */
    equals(other) {
      const { X: X1, Y: Y1, Z: Z1 } = this;
      const { X: X2, Y: Y2, Z: Z2 } = apoint(other);
      return modP(X1 * Z2) === modP(X2 * Z1) && modP(Y1 * Z2) === modP(Y2 * Z1);
    }
    is0() {
      return this.equals(I);
    }
    /** Flip point over y coordinate. */
    negate() {
      return new _Point(mod(-this.X), this.Y, this.Z, mod(-this.T));
    }
    /** Point doubling. Complete formula. Cost: \`4M + 4S + 1*a + 6add + 1*2\`. */
    double() {
      const { X: X1, Y: Y1, Z: Z1 } = this;
      const a = _a;
      const A = modP(X1 * X1);
      const B = modP(Y1 * Y1);
      const C = modP(2n * Z1 * Z1);
      const D = modP(a * A);
      const x1y1 = mod(X1 + Y1);
      const E = mod(modP(x1y1 * x1y1) - A - B);
      const G2 = mod(D + B);
      const F = mod(G2 - C);
      const H = mod(D - B);
      const X3 = modP(E * F);
      const Y3 = modP(G2 * H);
      const T3 = modP(E * H);
      const Z3 = modP(F * G2);
      return new _Point(X3, Y3, Z3, T3);
    }
    /** Point addition. Complete formula. Cost: \`9M + 1*a + 1*d + 7add\`. */
    add(other) {
      const { X: X1, Y: Y1, Z: Z1, T: T1 } = this;
      const { X: X2, Y: Y2, Z: Z2, T: T2 } = apoint(other);
      const a = _a;
      const d = _d;
      const A = modP(X1 * X2);
      const B = modP(Y1 * Y2);
      const C = modP(modP(T1 * d) * T2);
      const D = modP(Z1 * Z2);
      const E = mod(modP(mod(X1 + Y1) * mod(X2 + Y2)) - A - B);
      const F = mod(D - C);
      const G2 = mod(D + C);
      const H = mod(B - modP(a * A));
      const X3 = modP(E * F);
      const Y3 = modP(G2 * H);
      const T3 = modP(E * H);
      const Z3 = modP(F * G2);
      return new _Point(X3, Y3, Z3, T3);
    }
    subtract(other) {
      return this.add(apoint(other).negate());
    }
    /**
     * Point-by-scalar multiplication. Safe mode requires \`1 <= n < CURVE.n\`.
     * Unsafe mode additionally permits \`n = 0\` and returns the identity point for that case.
     * Uses {@link wNAF} for base point.
     * Uses fake point to mitigate side-channel leakage.
     * @param n - scalar by which point is multiplied
     * @param safe - safe mode guards against timing attacks; unsafe mode is faster
     */
    multiply(n, safe = true) {
      if (!safe && n === 0n)
        return I;
      arange(n, 1n, N);
      if (!safe && this.is0())
        return I;
      if (n === 1n)
        return this;
      if (this.equals(G))
        return wNAF(n).p;
      let p = I;
      let f = G;
      let d = this;
      for (let i = 0; safe ? i < 256 : n > 0n; i++) {
        if (n & 1n)
          p = p.add(d);
        else if (safe)
          f = f.add(d);
        d = d.double();
        n >>= 1n;
      }
      return p;
    }
    multiplyUnsafe(scalar) {
      return this.multiply(scalar, false);
    }
    /** Convert point to 2d xy affine point. (X, Y, Z) \u220B (x=X/Z, y=Y/Z) */
    toAffine() {
      const { X, Y, Z } = this;
      if (this.equals(I))
        return { x: 0n, y: 1n };
      const iz = invert(Z, P);
      if (modP(Z * iz) !== 1n)
        throw new Error("invalid inverse");
      return { x: modP(X * iz), y: modP(Y * iz) };
    }
    toBytes() {
      const { x, y } = this.toAffine();
      const b = numTo32bLE(y);
      b[31] |= x & 1n ? 128 : 0;
      return b;
    }
    toHex() {
      return bytesToHex2(this.toBytes());
    }
    clearCofactor() {
      return this.multiply(8n, false);
    }
    isSmallOrder() {
      return this.clearCofactor().is0();
    }
    isTorsionFree() {
      return this.multiply(N / 2n, false).double().add(this).is0();
    }
  };
  __publicField(_Point, "BASE");
  __publicField(_Point, "ZERO");
  var Point = _Point;
  var G = new Point(Gx, Gy, 1n, mod(Gx * Gy));
  var I = new Point(0n, 1n, 1n, 0n);
  Point.BASE = G;
  Point.ZERO = I;
  var numTo32bLE = (num) => hexToBytes(padh(arange(num, 0n, B256), 64)).reverse();
  var bytesToNumberLE = (b) => BigInt("0x" + bytesToHex2(Uint8Array.from(abytes2(b)).reverse()));
  var pow2 = (x, power) => {
    let r = x;
    while (power-- > 0) {
      r = modP(r * r);
    }
    return r;
  };
  var pow_2_252_3 = (x) => {
    const x2 = modP(x * x);
    const b2 = modP(x2 * x);
    const b4 = modP(pow2(b2, 2) * b2);
    const b5 = modP(pow2(b4, 1) * x);
    const b10 = modP(pow2(b5, 5) * b5);
    const b20 = modP(pow2(b10, 10) * b10);
    const b40 = modP(pow2(b20, 20) * b20);
    const b80 = modP(pow2(b40, 40) * b40);
    const b160 = modP(pow2(b80, 80) * b80);
    const b240 = modP(pow2(b160, 80) * b80);
    const b250 = modP(pow2(b240, 10) * b10);
    return modP(pow2(b250, 2) * x);
  };
  var RM1 = 0x2b8324804fc1df0b2b4d00993dfbd7a72f431806ad2fe478c4ee1b274a0ea0b0n;
  var uvRatio = (u, v) => {
    const v3 = modP(v * modP(v * v));
    const v7 = modP(modP(v3 * v3) * v);
    const pow = pow_2_252_3(modP(u * v7));
    let x = modP(u * modP(v3 * pow));
    const vx2 = modP(v * modP(x * x));
    const root1 = x;
    const root2 = modP(x * RM1);
    const useRoot1 = vx2 === u;
    const useRoot2 = vx2 === mod(-u);
    const noRoot = vx2 === mod(-u * RM1);
    if (useRoot1)
      x = root1;
    if (useRoot2 || noRoot)
      x = root2;
    if ((mod(x) & 1n) === 1n)
      x = mod(-x);
    return { isValid: useRoot1 || useRoot2, value: x };
  };
  var modL_LE = (hash) => modN(bytesToNumberLE(hash));
  var hashFinishSync = (res) => res[1](callHash("sha512", res[0]));
  var getZip215 = (options) => {
    if (options === null || typeof options !== "object")
      throw new TypeError("expected valid options object");
    return options.zip215 ?? true;
  };
  var _verify = (sig, msg, publicKey, options) => {
    sig = abytes2(sig, 64, "signature");
    msg = abytes2(msg, void 0, "message");
    publicKey = abytes2(publicKey, LEN, "publicKey");
    const zip215 = getZip215(options);
    const r = sig.subarray(0, LEN);
    const s = bytesToNumberLE(sig.subarray(LEN, 64));
    let A, R, SB;
    let hashable = Uint8Array.of();
    let finished = false;
    try {
      A = Point.fromBytes(publicKey, zip215);
      R = Point.fromBytes(r, zip215);
      SB = G.multiply(s, false);
      hashable = concatBytes(r, publicKey, msg);
      finished = true;
    } catch (error) {
    }
    const finish = (hashed) => {
      if (!finished)
        return false;
      if (!zip215 && A.isSmallOrder())
        return false;
      const k = modL_LE(hashed);
      const RkA = R.add(A.multiply(k, false));
      return RkA.subtract(SB).clearCofactor().is0();
    };
    return [hashable, finish];
  };
  var verify = (signature, message, publicKey, opts = {}) => hashFinishSync(_verify(signature, message, publicKey, opts));
  var hashes = {
    sha512Async: async (message) => {
      const s = globalThis?.crypto?.subtle;
      if (!s)
        throw new Error("crypto.subtle must be defined, consider polyfill");
      return new Uint8Array(await s.digest("SHA-512", concatBytes(message)));
    },
    sha512: void 0
  };
  var precompute = () => {
    const points = [];
    let p = G;
    let b;
    for (let w = 0; w < 33; w++) {
      b = p;
      points.push(b);
      for (let i = 1; i < 128; i++) {
        b = b.add(p);
        points.push(b);
      }
      p = b.double();
    }
    return points;
  };
  var Gpows = void 0;
  var ctneg = (cnd, p) => {
    const n = p.negate();
    return cnd ? n : p;
  };
  var wNAF = (n) => {
    const comp = Gpows || (Gpows = precompute());
    let p = I;
    let f = G;
    for (let w = 0; w < 33; w++) {
      let wbits = Number(n & 255n);
      n >>= 8n;
      if (wbits > 128) {
        wbits -= 256;
        n += 1n;
      }
      const off = w * 128;
      const offP = off + Math.abs(wbits) - 1;
      const isOddW = w % 2 !== 0;
      const isNeg = wbits < 0;
      if (wbits === 0) {
        f = f.add(ctneg(isOddW, comp[off]));
      } else {
        p = p.add(ctneg(isNeg, comp[offP]));
      }
    }
    if (n !== 0n)
      throw new Error("invalid wnaf");
    return { p, f };
  };

  // src/report/client/signature.ts
  hashes.sha512 = sha512;
  var SPKI_PREFIX = [48, 42, 48, 5, 6, 3, 43, 101, 112, 3, 33, 0];
  function keyIdOf(raw) {
    return sha256Hex(raw).slice(0, 16);
  }
  function base64Bytes(b64) {
    const bin = atob(b64);
    const out = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
    return out;
  }
  function rawKey(raw) {
    return { ok: true, raw, keyId: keyIdOf(raw) };
  }
  function parsePastedKey(text) {
    const t = text.trim();
    if (t === "") return { ok: false, reason: "paste a public key first" };
    const pem = /^-----BEGIN ([A-Z0-9 ]+)-----([\\s\\S]*?)-----END \\1-----$/.exec(t);
    if (pem !== null) {
      if (pem[1].includes("PRIVATE")) return { ok: false, reason: "this is a PRIVATE key: paste the public key only" };
      if (pem[1] !== "PUBLIC KEY") return { ok: false, reason: \`a PEM "\${pem[1]}"; expected "PUBLIC KEY" (SPKI)\` };
      const body = pem[2].replace(/\\s+/g, "");
      if (!/^[A-Za-z0-9+/]+={0,2}$/.test(body)) return { ok: false, reason: "the PEM body is not base64" };
      const der = base64Bytes(body);
      if (der.length !== 44 || SPKI_PREFIX.some((b, i) => der[i] !== b))
        return { ok: false, reason: "not an Ed25519 public key (another algorithm, or a malformed SPKI)" };
      return rawKey(der.slice(12));
    }
    if (/^[0-9a-fA-F]{64}$/.test(t)) {
      const raw = new Uint8Array(32);
      for (let i = 0; i < 32; i++) raw[i] = parseInt(t.slice(i * 2, i * 2 + 2), 16);
      return rawKey(raw);
    }
    if (/^[A-Za-z0-9+/]{43}=$/.test(t)) return rawKey(base64Bytes(t));
    return {
      ok: false,
      reason: 'not a public key: expected PEM "PUBLIC KEY", or the raw 32 bytes as 64 hex digits or base64'
    };
  }
  function verifyEd25519(signature, message, publicKey) {
    if (signature.length !== 64 || publicKey.length !== 32) return false;
    try {
      return verify(signature, message, publicKey, { zip215: false });
    } catch {
      return false;
    }
  }

  // src/journal/chain.ts
  var hashText = (h) => /^[0-9a-f]{64}$/.test(h) ? h : JSON.stringify(h);
  var short = hashText;
  var ChainChecker = class {
    constructor() {
      __publicField(this, "expectedSeq", 0);
      /** The previous row's stored step_hash; null after a row that had none (no prev_hash matches it). */
      __publicField(this, "prevHash", ZERO_HASH);
      __publicField(this, "steps", 0);
    }
    check(line, view, out) {
      if (view.seq !== void 0 && view.seq !== this.expectedSeq && BigInt(view.seq) !== BigInt(this.expectedSeq)) {
        out.add({ line, kind: "seq_mismatch", message: \`seq \${String(view.seq)}, expected \${this.expectedSeq}\` });
      }
      if (view.prev_hash !== void 0 && view.prev_hash !== this.prevHash) {
        out.add({
          line,
          kind: "prev_hash_mismatch",
          message: this.prevHash === null ? \`chain break: prev_hash \${short(view.prev_hash)}, but the previous row has no step_hash string\` : \`chain break: prev_hash \${short(view.prev_hash)} does not match the previous step_hash \${short(this.prevHash)}\`
        });
      }
      if (view.computedHash !== void 0 && view.step_hash !== void 0 && view.computedHash !== view.step_hash) {
        out.add({
          line,
          kind: "step_hash_mismatch",
          message: \`field tamper: stored step_hash \${short(view.step_hash)}, recomputed \${short(view.computedHash)}\`
        });
      }
      this.expectedSeq++;
      this.prevHash = view.step_hash ?? null;
      this.steps++;
    }
    /** The head: the last stored step_hash walked ('' when that row had none), 64 zeros before any row. */
    get head() {
      return this.steps === 0 ? ZERO_HASH : this.prevHash ?? "";
    }
  };

  // src/journal/faults.ts
  var MAX_LISTED_FAULTS = 1e3;
  var FaultList = class {
    constructor(cap = MAX_LISTED_FAULTS, mayJoin = () => true) {
      __publicField(this, "cap", cap);
      __publicField(this, "mayJoin", mayJoin);
      __publicField(this, "list", []);
      /** Every fault added (a run of n counts n). */
      __publicField(this, "total", 0);
      /** Faults counted but not listed (past MAX_LISTED_FAULTS entries). */
      __publicField(this, "omitted", 0);
      /** The latest entry of each kind, which a fault on the next line extends. */
      __publicField(this, "open", /* @__PURE__ */ new Map());
    }
    add(f) {
      const n = f.count ?? 1;
      this.total += n;
      if (f.line !== null) {
        const o = this.open.get(f.kind);
        if (o !== void 0 && (o.last_line ?? o.line) + 1 === f.line && this.mayJoin(o, f)) {
          o.count = (o.count ?? 1) + n;
          o.last_line = f.last_line ?? f.line;
          return;
        }
      }
      if (this.list.length >= this.cap && f.line !== null) {
        this.omitted += n;
        this.open.delete(f.kind);
        return;
      }
      const entry = { ...f };
      this.list.push(entry);
      if (f.line !== null) this.open.set(f.kind, entry);
    }
    /** Faults counted elsewhere and not listed (a slice's own overflow). */
    addOmitted(n) {
      this.total += n;
      this.omitted += n;
    }
    /** Adds every entry of another list, then its overflow. */
    addAll(other) {
      for (const f of other.list) this.add(f);
      if (other.omitted > 0) this.addOmitted(other.omitted);
    }
  };

  // src/journal/lines.ts
  function isPyWhitespace(c) {
    if (c <= 32) return c === 32 || c >= 9 && c <= 13 || c >= 28 && c <= 31;
    if (c < 133) return false;
    return c === 133 || c === 160 || c === 5760 || c >= 8192 && c <= 8202 || c === 8232 || c === 8233 || c === 8239 || c === 8287 || c === 12288;
  }
  function pyStrip(s) {
    let a = 0;
    let b = s.length;
    while (a < b && isPyWhitespace(s.charCodeAt(a))) a++;
    while (b > a && isPyWhitespace(s.charCodeAt(b - 1))) b--;
    return a === 0 && b === s.length ? s : s.slice(a, b);
  }
  function forEachReferenceLine(buf, from, to, fn) {
    let pos = from;
    while (pos < to) {
      const nl = indexIn(buf, 10, pos, to);
      const segEnd = nl < 0 ? to : nl;
      splitSegment(buf, pos, segEnd, nl >= 0, fn);
      pos = segEnd + 1;
    }
  }
  function splitSegment(buf, a, b, lf, fn) {
    let lines = 0;
    let s = a;
    for (; ; ) {
      const cr = indexIn(buf, 13, s, b);
      if (cr < 0) {
        if (lf) fn(s, b, b + 1, "lf");
        else if (s < b) fn(s, b, b, "eof");
        else return lines;
        return lines + 1;
      }
      if (cr + 1 === b && lf) {
        fn(s, cr, b + 1, "crlf");
        return lines + 1;
      }
      fn(s, cr, cr + 1, "cr");
      lines++;
      s = cr + 1;
    }
  }
  function indexIn(buf, byte, from, to) {
    if (to - from <= 32) {
      for (let i = from; i < to; i++) if (buf[i] === byte) return i;
      return -1;
    }
    const k = buf.subarray(from, to).indexOf(byte);
    return k < 0 ? -1 : from + k;
  }

  // src/journal/step-hash.ts
  function payloadOf(f) {
    return {
      prev_hash: f.prev_hash,
      input_hash: f.input_hash,
      model: f.model,
      prompt: f.prompt,
      tool_call: f.tool_call,
      tool_result: f.tool_result
    };
  }
  function stepPayload(f, read = false) {
    return read ? canonicalOfRead(payloadOf(f)) : canonical(payloadOf(f));
  }
  function computeStepHash(f, read = false) {
    return sha256Hex(stepPayload(f, read));
  }

  // src/journal/row.ts
  var ROW_KEYS = [
    "blob_refs",
    "input_hash",
    "model",
    "prev_hash",
    "prompt",
    "seq",
    "step_hash",
    "tool_call",
    "tool_result",
    "ts"
  ];
  var JSON_START = /^[{["0-9tfnNI-]/;
  function readRowLine(bytes) {
    let value;
    let raw;
    try {
      raw = decodeUtf8(bytes);
    } catch {
      return { kind: "malformed", reason: "invalid UTF-8" };
    }
    const text = pyStrip(raw);
    if (text.length === 0) return { kind: "blank" };
    if (!JSON_START.test(text)) return { kind: "malformed", reason: "expecting value at column 1" };
    try {
      value = parse(text);
    } catch (e) {
      if (e instanceof JsonParseError) return { kind: "malformed", reason: e.message };
      if (e instanceof RangeError) return { kind: "malformed", reason: "line too large to read" };
      throw e;
    }
    if (!isJsonObject(value)) return { kind: "malformed", reason: "line is not a JSON object" };
    return rowFromValue(value, text === raw ? text : void 0);
  }
  var has = (o, k) => Object.prototype.hasOwnProperty.call(o, k);
  function rowFromValue(value, text, known) {
    const bad = [];
    const v = value;
    const field = (k, ok, what) => {
      if (!has(value, k)) bad.push(\`no "\${k}" key\`);
      else if (!ok) bad.push(\`"\${k}" \${what}\`);
      return has(value, k) && ok;
    };
    const seqOk = field("seq", isJsonInteger(v.seq), "is not an integer");
    const prevOk = field("prev_hash", typeof v.prev_hash === "string", "is not a string");
    const stepOk = field("step_hash", typeof v.step_hash === "string", "is not a string");
    const inputOk = field("input_hash", typeof v.input_hash === "string", "is not a string");
    let hashedPresent = true;
    for (const k of ["model", "prompt", "tool_call", "tool_result"])
      hashedPresent = field(k, true, "") && hashedPresent;
    const refs = v.blob_refs;
    field("blob_refs", Array.isArray(refs) && refs.every((r) => isSha256Hex(r)), "is not a list of SHA-256 hex digests");
    const ts = numericValue(v.ts);
    field("ts", ts !== void 0, "is not a number");
    const fields = prevOk && inputOk && hashedPresent ? {
      prev_hash: v.prev_hash,
      input_hash: v.input_hash,
      model: v.model,
      prompt: v.prompt,
      tool_call: v.tool_call,
      tool_result: v.tool_result
    } : void 0;
    const view = {
      seq: seqOk ? v.seq : void 0,
      prev_hash: prevOk ? v.prev_hash : void 0,
      step_hash: stepOk ? v.step_hash : void 0,
      computedHash: fields === void 0 ? void 0 : known?.computedHash ?? computeStepHash(fields, true)
    };
    if (bad.length > 0) {
      return { kind: "row", view, row: void 0, shape: \`row shape: \${bad.join("; ")}\`, value, canonical: false };
    }
    const row = {
      ...fields,
      blob_refs: refs,
      seq: Number(v.seq),
      step_hash: v.step_hash,
      ts
    };
    let isCanonical = known?.canonical ?? false;
    if (known === void 0 && text !== void 0 && Object.keys(value).length === ROW_KEYS.length) {
      try {
        isCanonical = canonicalOfRead(value) === text;
      } catch {
        isCanonical = false;
      }
    }
    return { kind: "row", view, row, shape: void 0, value, canonical: isCanonical };
  }

  // src/report/client/verifier.ts
  function createVerifier(bytes, options = {}) {
    const window = options.window ?? null;
    const lineOffset = window === null ? 0 : window.first_line - 1;
    const bounds = [];
    forEachReferenceLine(bytes, 0, bytes.length, (s, e) => void bounds.push(s, e));
    const total = bounds.length / 2;
    const reachesEnd = window === null || lineOffset + total >= window.total_lines;
    const entries = [];
    const faults = new FaultList();
    const chain = new ChainChecker();
    if (window !== null) {
      chain.expectedSeq = window.first_seq;
      chain.prevHash = window.anchor_hash;
    }
    let done = false;
    const checkLine = (idx) => {
      const start = bounds[idx * 2];
      const end = bounds[idx * 2 + 1];
      const line = lineOffset + idx + 1;
      const entry = { line, start, end, row: null, computed: null, faults: [] };
      entries.push(entry);
      const sink = {
        add(f) {
          entry.faults.push(f);
          faults.add(f);
        }
      };
      const read = readRowLine(bytes.subarray(start, end));
      if (read.kind === "blank") return;
      if (read.kind === "malformed") {
        sink.add({ line, kind: "malformed_json", message: read.reason });
        return;
      }
      if (read.shape !== void 0) sink.add({ line, kind: "malformed_json", message: read.shape });
      chain.check(line, read.view, sink);
      entry.row = read.row ?? null;
      entry.computed = read.view.computedHash ?? null;
    };
    const head = () => chain.head;
    const finish = () => {
      if (window === null && chain.steps === 0)
        faults.add({
          line: null,
          kind: "empty_journal",
          message: total === 0 ? "journal has no steps" : "journal has no steps (no line holds a row)"
        });
      const expected = options.expectedHead;
      if (reachesEnd && expected !== void 0 && expected !== null && expected !== head()) {
        faults.add({ line: null, kind: "head_mismatch", message: \`head \${head()}, expected \${expected}\` });
      }
      done = true;
    };
    return {
      entries,
      total,
      run(maxLines) {
        if (done) return true;
        const stop = Math.min(total, entries.length + maxLines);
        while (entries.length < stop) checkLine(entries.length);
        if (entries.length >= total) finish();
        return done;
      },
      result() {
        const r = {
          ok: done && faults.total === 0,
          head_hash: head(),
          steps: chain.steps,
          errors: faults.list.slice(),
          fault_count: faults.total,
          errors_omitted: faults.omitted
        };
        return r;
      }
    };
  }

  // src/report/client/app.ts
  var lossyUtf8 = new TextDecoder("utf-8", { fatal: false, ignoreBOM: true });
  var HASHED_FIELDS = ["model", "prompt", "tool_call", "tool_result"];
  var BLOB_PAGE = 100;
  function startReport(doc) {
    const root = doc.documentElement;
    const $ = (id) => {
      const e = doc.getElementById(id);
      if (e === null) throw new Error(\`page element #\${id} is missing\`);
      return e;
    };
    const el = (tag, cls, text) => {
      const e = doc.createElement(tag);
      if (cls) e.className = cls;
      if (text !== void 0) e.textContent = text;
      return e;
    };
    const fmtInt = (n) => String(n).replace(/\\B(?=(\\d{3})+(?!\\d))/g, ",");
    const fmtSize = (n) => n < 1024 ? \`\${n} B\` : n < 1048576 ? \`\${(n / 1024).toFixed(1)} KiB\` : \`\${(n / 1048576).toFixed(1)} MiB\`;
    const plural = (n, one, many = \`\${one}s\`) => \`\${fmtInt(n)} \${n === 1 ? one : many}\`;
    const fail = (kind, message) => {
      root.setAttribute("data-verify-state", "done");
      root.setAttribute("data-verified", "false");
      root.setAttribute("data-first-fault-kind", kind);
      const status2 = doc.getElementById("status");
      if (status2) {
        status2.className = "status bad";
        const t = doc.getElementById("status-title");
        if (t) t.textContent = "\\u2717 NOT VERIFIED: the report could not check this chain";
        const d = doc.getElementById("status-detail");
        if (d) d.textContent = message;
      }
    };
    let data;
    try {
      data = JSON.parse($("stepchain-data").textContent ?? "");
      if (data.format !== 2) throw new Error(\`format \${String(data.format)}, this page reads format 2\`);
    } catch (e) {
      fail("report_error", \`embedded data unreadable: \${e.message}\`);
      return;
    }
    const win = data.window;
    const gv = data.generator_verify;
    const journal = base64Bytes(data.journal_b64);
    const verifier = createVerifier(journal, { expectedHead: data.expected_head, window: win });
    const entries = verifier.entries;
    const blobFaults = [];
    let finished = null;
    const textOf = (e) => lossyUtf8.decode(journal.subarray(e.start, e.end));
    const meta = $("meta");
    const metaRow = (k, v, cls) => {
      const dd = el("dd", cls, v);
      meta.append(el("dt", void 0, k), dd);
      return dd;
    };
    metaRow("Agent", data.agent_id);
    metaRow("Source", \`\${data.source.kind === "receipt" ? "receipt" : "journal"} \${data.source.path}\`);
    const stepsDd = metaRow("Steps", "\\u2026");
    const headDd = metaRow("Head hash", "\\u2026", "hash");
    metaRow("Generated", \`\${data.generated_at} by \${data.generator}\`);
    metaRow(
      "Generator check",
      gv.ok ? \`intact (\${plural(gv.steps, "step")}, head \${gv.head_hash})\` : \`\${plural(gv.errors.length, "fault")}: first \${gv.errors[0]?.kind ?? ""} at line \${gv.errors[0]?.line ?? "-"}\`,
      "hash"
    );
    if (win !== null) {
      metaRow(
        "Window",
        \`lines \${fmtInt(win.first_line)}\\u2013\${fmtInt(win.first_line + Math.max(0, verifier.total - 1))} of \${fmtInt(win.total_lines)} are embedded; the first links to step_hash \${win.anchor_hash}, which the generator verified from genesis\`,
        "hash warn"
      );
    }
    let signature = null;
    let signatureKey = null;
    const signatureFaults = [];
    const pastedFailed = [];
    let renderSignature = () => {
    };
    if (data.receipt !== null) {
      const r = data.receipt;
      const manifest = base64Bytes(r.manifest_b64);
      const sig = r.signature_b64 === null ? null : base64Bytes(r.signature_b64);
      if (!r.signed || sig === null) {
        signature = "unsigned";
        if (r.public_keys.length > 0)
          signatureFaults.push({
            line: null,
            kind: "unsigned",
            message: "manifest.sig: a trusted key was given but the receipt is not signed (no manifest.sig)"
          });
      } else if (r.public_keys.length === 0) {
        signature = "not_checked";
      } else {
        const good = r.public_keys.find((k) => verifyEd25519(sig, manifest, base64Bytes(k.raw_b64)));
        if (good !== void 0) {
          signature = "verified";
          signatureKey = good.key_id;
        } else {
          signature = "invalid";
          signatureFaults.push({
            line: null,
            kind: "signature_invalid",
            message: \`manifest.sig: the signature does not verify under any trusted key (\${r.public_keys.map((k) => k.key_id).join(", ")})\`
          });
        }
      }
      const sec = $("receipt");
      sec.hidden = false;
      const dl = el("dl", "meta");
      const add2 = (k, v, cls) => {
        const dd = el("dd", cls, v);
        dl.append(el("dt", void 0, k), dd);
        return dd;
      };
      add2("Signed", r.signed ? "yes (manifest.sig, Ed25519)" : "no", r.signed ? void 0 : "warn");
      const sigDd = add2("Signature", "");
      add2(
        "Keys given to the generator",
        r.public_keys.length === 0 ? "none" : r.public_keys.map((k) => \`\${k.key_id} (\${k.source})\`).join("\\n"),
        "hash"
      );
      add2("Generator said", r.signature_check);
      add2("Expected head", data.expected_head ?? "(none)", "hash");
      if (r.generator_faults.length > 0)
        add2("Receipt problems", r.generator_faults.map((f) => \`\${f.kind}: \${f.message}\`).join("\\n"), "badtext");
      sec.append(dl);
      renderSignature = () => {
        sigDd.className = signature === "verified" ? "oktext" : signature === "invalid" ? "badtext" : "warn";
        sigDd.textContent = signature === "verified" ? \`\\u2713 verified in this browser under key \${signatureKey ?? ""}\` : signature === "invalid" ? "\\u2717 does NOT verify under the given key(s)" : signature === "not_checked" ? pastedFailed.length > 0 ? \`NOT checked: the pasted key \${pastedFailed.join(", ")} does not hold. Paste the signer\\u2019s public key below to check it here.\` : "NOT checked: no public key was given. Paste the signer\\u2019s public key below to check it here." : "unsigned: there is no signature to check";
        root.setAttribute("data-signature", signature ?? "");
        if (signatureKey !== null) root.setAttribute("data-signature-key", signatureKey);
      };
      renderSignature();
      if (r.signed && sig !== null) {
        const box = el("div", "paste");
        const label = el(
          "label",
          void 0,
          "Check the signature with a public key (PEM, or 32 bytes as hex or base64):"
        );
        const area = el("textarea");
        area.id = "public-key";
        area.rows = 3;
        area.spellcheck = false;
        area.placeholder = "-----BEGIN PUBLIC KEY-----\\n\\u2026\\n-----END PUBLIC KEY-----";
        label.append(area);
        const button = el("button", void 0, "Check signature");
        button.id = "check-signature";
        const result = el("div", "paste-result");
        result.id = "signature-result";
        result.setAttribute("role", "status");
        button.addEventListener("click", () => {
          const key = parsePastedKey(area.value);
          if (!key.ok) {
            result.className = "paste-result warn";
            result.textContent = \`Not a usable key: \${key.reason}\`;
            root.setAttribute("data-pasted-key", "bad_key");
            return;
          }
          if (verifyEd25519(sig, manifest, key.raw)) {
            result.className = "paste-result oktext";
            result.textContent = \`\\u2713 The manifest signature holds under key \${key.keyId}: this receipt's manifest.json was signed by that key's owner and not changed since (checked in this browser, offline).\`;
            root.setAttribute("data-pasted-key", "holds");
            if (signature === "not_checked") {
              signature = "verified";
              signatureKey = key.keyId;
              renderSignature();
              renderVerdict();
            }
          } else {
            result.className = "paste-result badtext";
            result.textContent = \`\\u2717 The manifest signature does NOT hold under key \${key.keyId}: either another key signed it, or manifest.json was changed after signing.\`;
            root.setAttribute("data-pasted-key", "fails");
            if (signature === "not_checked" && !pastedFailed.includes(key.keyId)) {
              pastedFailed.push(key.keyId);
              renderSignature();
              renderVerdict();
            }
          }
        });
        box.append(label, button, result);
        sec.append(box);
      }
      const det = el("details");
      det.append(el("summary", void 0, "manifest.json"));
      let manifestShown = lossyUtf8.decode(manifest);
      const parsed = orderedRow(manifestShown);
      if (parsed !== null) manifestShown = display(parsed);
      det.append(el("pre", "code", manifestShown));
      sec.append(det);
      sec.append(
        el(
          "p",
          "note",
          "Checked in this browser: the chain (every step hash, link and seq), that it ends at the manifest head, the bundled blobs\\u2019 digests, and the Ed25519 signature over manifest.json under the keys above or a key you paste. Checked by the generator only: the archive structure and that blob_digests matches the chain."
        )
      );
    }
    const ROW_H = 26;
    const list = $("list");
    const spacer = $("list-spacer");
    const search = $("search");
    const onlyFaults = $("only-faults");
    const countEl = $("count");
    let view = [];
    let sel = -1;
    let filterText = "";
    let userMoved = false;
    const hay = [];
    const haystack = (i) => {
      let h = hay[i];
      if (h === void 0) {
        const e = entries[i];
        const r = e.row;
        h = (r === null ? \`line \${e.line} \${textOf(e)}\` : \`#\${r.seq} \${fieldText(r.model)} \${fieldText(r.prompt)} \${fieldText(r.tool_call)} \${fieldText(r.tool_result)} \${r.step_hash}\`).toLowerCase();
        hay[i] = h;
      }
      return h;
    };
    const matches = (i) => {
      const e = entries[i];
      if (onlyFaults.checked && e.faults.length === 0) return false;
      return filterText === "" || haystack(i).includes(filterText);
    };
    const rebuildView = () => {
      const current = sel >= 0 ? view[sel] : void 0;
      view = [];
      for (let i = 0; i < entries.length; i++) if (matches(i)) view.push(i);
      sel = current === void 0 ? view.length > 0 ? 0 : -1 : view.indexOf(current);
      if (sel < 0 && view.length > 0) sel = 0;
      renderList(true);
      renderDetail();
    };
    const extendView = (from) => {
      for (let i = from; i < entries.length; i++) if (matches(i)) view.push(i);
      if (sel < 0 && view.length > 0) {
        sel = 0;
        renderDetail();
      }
    };
    const labelOf = (e) => {
      const r = e.row;
      if (r === null) return { n: \`L\${e.line}\`, text: \`malformed line: \${textOf(e).slice(0, 80)}\` };
      const call = r.tool_call;
      const name = call !== null && typeof call === "object" && !Array.isArray(call) && !(call instanceof Map) ? call.name : void 0;
      const tool = typeof name === "string" ? \`\${name} \\xB7 \` : "";
      const p = r.prompt === null ? "" : fieldText(r.prompt);
      return { n: \`#\${r.seq}\`, text: \`\${tool}\${p.slice(0, 120)}\` };
    };
    let rendered = /* @__PURE__ */ new Map();
    const renderList = (force = false) => {
      spacer.style.height = \`\${view.length * ROW_H}px\`;
      const top = list.scrollTop;
      const first = Math.max(0, Math.floor(top / ROW_H) - 10);
      const last = Math.min(view.length, Math.ceil((top + list.clientHeight) / ROW_H) + 10);
      const next = /* @__PURE__ */ new Map();
      for (let v = first; v < last; v++) {
        const idx = view[v];
        let row = force ? void 0 : rendered.get(v);
        if (row !== void 0 && row.dataset.entry !== String(idx)) row = void 0;
        if (row === void 0) {
          const e = entries[idx];
          row = el("div", "item");
          row.dataset.entry = String(idx);
          row.dataset.view = String(v);
          row.style.top = \`\${v * ROW_H}px\`;
          const { n, text } = labelOf(e);
          row.append(el("span", "n", n), el("span", "mark", e.faults.length > 0 ? "\\u2717" : "\\u2713"), el("span", "label", text));
          if (e.faults.length > 0) row.classList.add("faulty");
          rendered.delete(v);
        }
        row.classList.toggle("selected", v === sel);
        row.setAttribute("aria-selected", v === sel ? "true" : "false");
        next.set(v, row);
      }
      for (const [, old] of rendered) old.remove();
      for (const [, r] of next) if (r.parentNode !== spacer) spacer.append(r);
      rendered = next;
      countEl.textContent = \`\${fmtInt(view.length)} of \${fmtInt(verifier.total)} lines\${entries.length < verifier.total ? " (verifying\\u2026)" : ""}\`;
      const pos = doc.getElementById("detail-position");
      if (pos) pos.textContent = sel >= 0 && view.length > 0 ? \`\${fmtInt(sel + 1)} / \${fmtInt(view.length)} shown\` : "";
    };
    list.addEventListener("scroll", () => renderList());
    list.addEventListener("click", (ev) => {
      const item = ev.target.closest(".item");
      if (item?.dataset.view !== void 0) {
        userMoved = true;
        select(Number(item.dataset.view));
      }
    });
    const scrollIntoView = () => {
      if (sel < 0) return;
      const y = sel * ROW_H;
      if (y < list.scrollTop) list.scrollTop = y;
      else if (y + ROW_H > list.scrollTop + list.clientHeight) list.scrollTop = y + ROW_H - list.clientHeight;
    };
    const select = (v) => {
      if (view.length === 0) return;
      sel = Math.max(0, Math.min(view.length - 1, v));
      scrollIntoView();
      renderList();
      renderDetail();
    };
    const jumpToLine = (line) => {
      if (filterText !== "" || onlyFaults.checked) {
        search.value = "";
        filterText = "";
        onlyFaults.checked = false;
        rebuildView();
      }
      const idx = entries.findIndex((e) => e.line === line);
      const v = idx < 0 ? -1 : view.indexOf(idx);
      if (v >= 0) select(v);
    };
    const detail = $("detail");
    const MAX_SHOWN = 2e5;
    const pre = (s) => {
      const p = el("pre", "code");
      if (s.length > MAX_SHOWN) {
        p.textContent = s.slice(0, MAX_SHOWN);
        const more = el("button", "more", \`show all \${fmtInt(s.length)} characters\`);
        more.addEventListener("click", () => {
          p.textContent = s;
        });
        const box = el("div");
        box.append(p, more);
        return box;
      }
      p.textContent = s;
      return p;
    };
    const blobByDigest = /* @__PURE__ */ new Map();
    for (const b of data.blobs) blobByDigest.set(b.digest, b);
    const previousRow = (idx) => {
      for (let j = idx - 1; j >= 0; j--) if (entries[j].row !== null) return entries[j];
      return null;
    };
    const renderDetail = () => {
      detail.textContent = "";
      if (sel < 0 || view.length === 0) {
        const why = verifier.total === 0 ? "The journal has no lines." : entries.length === 0 ? "Verifying\\u2026" : "No step matches the search.";
        detail.append(el("p", "note", why));
        return;
      }
      const idx = view[sel];
      const e = entries[idx];
      const r = e.row;
      const text = textOf(e);
      const h = el("h2");
      const position = el("span", "dim");
      position.id = "detail-position";
      position.textContent = \`\${fmtInt(sel + 1)} / \${fmtInt(view.length)} shown\`;
      h.append(
        el("span", void 0, r === null ? \`Line \${e.line} \` : \`Step \${r.seq} \`),
        el("span", "dim", \`line \${e.line} \\xB7 \`),
        position
      );
      detail.append(h);
      detail.dataset.line = String(e.line);
      if (e.faults.length > 0) {
        const ul = el("ul", "faults");
        for (const f of e.faults) ul.append(el("li", void 0, \`line \${e.line}: \${f.kind}: \${f.message}\`));
        detail.append(ul);
      } else if (r !== null) {
        detail.append(el("p", "okline", "\\u2713 step hash recomputed in this browser and linked to the previous step"));
      }
      if (r === null) {
        detail.append(el("h3", void 0, "Raw line"), pre(text));
        return;
      }
      const shown = orderedRow(text);
      const field = (k) => shown === null ? void 0 : shown.get(k);
      const dl = el("dl", "meta");
      const add2 = (k, v, cls) => {
        const dd = el("dd", cls, v);
        dl.append(el("dt", void 0, k), dd);
        return dd;
      };
      const ts = r.ts;
      const tsDate = Number.isFinite(ts) && Math.abs(ts) < 864e10 ? new Date(ts * 1e3).toISOString() : "";
      add2("Time", \`\${tsDate} (ts \${display(field("ts") ?? null)})\`);
      add2("Model", fieldText(field("model") ?? r.model));
      add2("Input hash", r.input_hash, "hash");
      add2("Prev hash", r.prev_hash, "hash");
      add2("Step hash", r.step_hash, "hash");
      if (e.computed !== r.step_hash) add2("Recomputed", e.computed ?? "", "hash badtext");
      const prev = previousRow(idx);
      if (prev !== null && prev.row !== null) {
        const before = orderedRow(textOf(prev));
        const changes = [];
        const shown2 = (v) => {
          const t = preview(fieldText(v), 120);
          return t === "" ? '""' : t;
        };
        for (const k of HASHED_FIELDS) {
          for (const c of valueChanges(k, before?.get(k) ?? prev.row[k], field(k) ?? r[k])) {
            if (c.kind === "added") changes.push(\`+ \${c.path}: \${shown2(c.after)}\`);
            else if (c.kind === "removed") changes.push(\`- \${c.path}: \${shown2(c.before)}\`);
            else changes.push(\`\${c.path}: \${shown2(c.before)} \\u2192 \${shown2(c.after)}\`);
          }
        }
        const MAX_CHANGES = 40;
        const listed = changes.length > MAX_CHANGES ? [...changes.slice(0, MAX_CHANGES), \`\\u2026 \${changes.length - MAX_CHANGES} more\`] : changes;
        const dd = add2("Changed", listed.length > 0 ? listed.join("\\n") : "nothing but the hashes and time");
        dd.classList.add("changed");
      }
      detail.append(dl);
      for (const k of ["prompt", "tool_call", "tool_result"]) {
        const v = field(k) ?? r[k];
        detail.append(el("h3", void 0, k), pre(typeof v === "string" ? v : display(v)));
      }
      const refs = r.blob_refs;
      detail.append(el("h3", void 0, \`blob_refs (\${refs.length})\`));
      if (refs.length > 0) {
        const ul = el("ul", "refs");
        for (const d of refs) {
          const li = el("li");
          const b = blobByDigest.get(d);
          li.append(
            el("code", "hash", d),
            el(
              "span",
              "dim",
              b === void 0 ? " (not bundled)" : b.size === null ? " (not found)" : \` \${fmtSize(b.size)}\${b.b64 === void 0 ? \` \\xB7 not embedded: \${b.skipped ?? ""}\` : ""}\`
            )
          );
          if (b?.b64 !== void 0) li.append(blobPreview(b));
          ul.append(li);
        }
        detail.append(ul);
      }
      const raw = el("details");
      raw.append(el("summary", void 0, "raw line"), pre(text));
      detail.append(raw);
    };
    const blobPreview = (b) => {
      const det = el("details", "preview");
      det.append(el("summary", void 0, "preview"));
      let filled = false;
      det.addEventListener("toggle", () => {
        if (filled || !det.open) return;
        filled = true;
        const bytes = base64Bytes(b.b64 ?? "");
        const head = bytes.subarray(0, 4096);
        let binary;
        let textPreview = "";
        try {
          textPreview = decodeUtf8(head);
          binary = /[\\u0000-\\u0008\\u000e-\\u001f]/.test(textPreview);
        } catch {
          try {
            textPreview = decodeUtf8(head.subarray(0, Math.max(0, head.length - 3)));
            binary = bytes.length <= 4096;
          } catch {
            binary = true;
          }
        }
        if (binary) {
          let hex = "";
          for (let i = 0; i < Math.min(512, bytes.length); i++)
            hex += bytes[i].toString(16).padStart(2, "0") + (i % 16 === 15 ? "\\n" : " ");
          textPreview = \`binary, first \${Math.min(512, bytes.length)} bytes:
\${hex}\`;
        } else if (bytes.length > 4096) textPreview += \`
\\u2026 (\${fmtSize(bytes.length)} in all)\`;
        det.append(el("pre", "code", textPreview));
      });
      return det;
    };
    const blobsSec = $("blobs");
    const blobChecked = /* @__PURE__ */ new Map();
    const blobStatusText = (b) => {
      if (b.b64 === void 0) return \`not embedded: \${b.skipped ?? "unknown"}\`;
      const c = blobChecked.get(b.digest);
      return c === void 0 ? "embedded (digest not checked yet)" : c === true ? "embedded, digest verified \\u2713" : \`digest MISMATCH: bytes hash to \${c}\`;
    };
    let renderBlobs = () => {
    };
    if (data.blobs.length > 0) {
      blobsSec.hidden = false;
      const summary = el("p", "note");
      summary.id = "blob-summary";
      const table = el("table", "blobs");
      const more = el("button", "more");
      more.id = "blob-more";
      let shownRows = 0;
      const statusCells = /* @__PURE__ */ new Map();
      const addRows = (n) => {
        const stop = Math.min(data.blobs.length, shownRows + n);
        for (; shownRows < stop; shownRows++) {
          const b = data.blobs[shownRows];
          const tr = el("tr");
          const st = el("td", void 0, blobStatusText(b));
          statusCells.set(b.digest, st);
          const pv = el("td");
          if (b.b64 !== void 0) pv.append(blobPreview(b));
          tr.append(el("td", "hash", b.digest), el("td", void 0, b.size === null ? "-" : fmtSize(b.size)), st, pv);
          table.append(tr);
        }
        const left = data.blobs.length - shownRows;
        more.hidden = left === 0;
        more.textContent = \`show \${fmtInt(Math.min(BLOB_PAGE, left))} more (\${fmtInt(left)} not shown)\`;
      };
      more.addEventListener("click", () => addRows(BLOB_PAGE));
      renderBlobs = () => {
        const counts = /* @__PURE__ */ new Map();
        for (const b of data.blobs) {
          const s = b.b64 === void 0 ? \`not embedded: \${b.skipped ?? "unknown"}\` : blobChecked.get(b.digest) === void 0 ? "embedded, not checked yet" : blobChecked.get(b.digest) === true ? "embedded, digest verified" : "embedded, digest MISMATCH";
          counts.set(s, (counts.get(s) ?? 0) + 1);
        }
        const embedded = data.blobs.filter((b) => b.b64 !== void 0).length;
        summary.textContent = \`\${plural(data.blobs.length, "referenced blob")}: \${fmtInt(embedded)} embedded (cap \${fmtSize(data.blob_caps.per_blob)} each, \${fmtSize(data.blob_caps.total)} in all). \` + [...counts].map(([s, n]) => \`\${fmtInt(n)} \${s}\`).join("; ") + ".";
        for (const [d, cell] of statusCells) {
          const b = blobByDigest.get(d);
          cell.textContent = blobStatusText(b);
          cell.className = blobChecked.get(d) !== void 0 && blobChecked.get(d) !== true ? "badtext" : "";
        }
      };
      const thead = el("tr");
      for (const t of ["digest", "size", "status", ""]) thead.append(el("th", void 0, t));
      table.append(thead);
      blobsSec.append(summary, table, more);
      addRows(BLOB_PAGE);
      renderBlobs();
    }
    if (data.forks !== null) {
      const sec = $("forks");
      sec.hidden = false;
      const draw = (n) => {
        const li = el("li");
        const bits = [n.id];
        if (n.label) bits.push(\`\\u201C\${n.label}\\u201D\`);
        if (n.from_step !== void 0 && n.from_step !== null) bits.push(\`from step \${n.from_step}\`);
        if (n.branch) bits.push(\`branch \${n.branch}\`);
        if (n.steps_since !== void 0 && n.steps_since !== null)
          bits.push(\`+\${n.steps_since} step\${n.steps_since === 1 ? "" : "s"} since\`);
        if (n.journal_ok === false) bits.push("JOURNAL DOES NOT VERIFY");
        if (n.missing) bits.push("WORKTREE MISSING");
        if (n.current) bits.push("(this report)");
        const span = el(
          "span",
          n.current ? "node current" : n.journal_ok === false || n.missing ? "node badnode" : "node",
          bits.join(" \\xB7 ")
        );
        li.append(span);
        if (n.children.length > 0) {
          const ul2 = el("ul");
          for (const c of n.children) ul2.append(draw(c));
          li.append(ul2);
        }
        return li;
      };
      const ul = el("ul", "tree");
      ul.append(draw(data.forks));
      sec.append(ul);
    }
    let searchTimer;
    search.addEventListener("input", () => {
      if (searchTimer !== void 0) clearTimeout(searchTimer);
      searchTimer = setTimeout(() => {
        filterText = search.value.trim().toLowerCase();
        rebuildView();
      }, 120);
    });
    onlyFaults.addEventListener("change", () => rebuildView());
    doc.addEventListener("keydown", (ev) => {
      const t = ev.target;
      if (t !== null && t.tagName === "TEXTAREA") return;
      if (t !== null && t.tagName === "INPUT") {
        if (ev.key === "Escape") {
          search.value = "";
          filterText = "";
          rebuildView();
          search.blur();
        } else if (ev.key === "Enter" || ev.key === "ArrowDown") {
          if (searchTimer !== void 0) clearTimeout(searchTimer);
          filterText = search.value.trim().toLowerCase();
          rebuildView();
          search.blur();
          ev.preventDefault();
        }
        return;
      }
      if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
      const page = Math.max(1, Math.floor(list.clientHeight / ROW_H) - 1);
      let to;
      switch (ev.key) {
        case "ArrowRight":
        case "ArrowDown":
        case "j":
          to = sel + 1;
          break;
        case "ArrowLeft":
        case "ArrowUp":
        case "k":
          to = sel - 1;
          break;
        case "Home":
        case "g":
          to = 0;
          break;
        case "End":
        case "G":
          to = view.length - 1;
          break;
        case "PageDown":
          to = sel + page;
          break;
        case "PageUp":
          to = sel - page;
          break;
        case "/":
          search.focus();
          ev.preventDefault();
          return;
        default:
          return;
      }
      ev.preventDefault();
      userMoved = true;
      select(to);
    });
    const status = $("status");
    const title = $("status-title");
    const statusDetail = $("status-detail");
    const bar = $("progress-bar");
    const faultList = $("faults");
    root.setAttribute("data-verify-state", "running");
    const showFaults = (errors) => {
      faultList.textContent = "";
      const shown = errors.slice(0, 200);
      for (const f of shown) {
        const li = el("li");
        if (f.line !== null) {
          const a = el("button", "linklike", \`line \${f.line}\`);
          const line = f.line;
          a.addEventListener("click", () => jumpToLine(line));
          li.append(a, el("span", void 0, \`: \${f.kind}: \${f.message}\`));
        } else li.textContent = \`\${f.kind}: \${f.message}\`;
        faultList.append(li);
      }
      if (errors.length > shown.length)
        faultList.append(
          el(
            "li",
            void 0,
            \`\\u2026 and \${errors.length - shown.length} more (tick \\u201Conly faults\\u201D to list every faulty line)\`
          )
        );
    };
    const outsideFaults = () => {
      if (win === null) return [];
      const last = win.first_line + verifier.total - 1;
      const reachesEnd = last >= win.total_lines;
      return gv.errors.filter((f) => f.line === null ? !reachesEnd : f.line < win.first_line || f.line > last).map((f) => ({ ...f, message: \`\${f.message} (outside the embedded window: checked by the generator)\` }));
    };
    const renderVerdict = () => {
      if (finished === null) return [];
      const r = finished;
      const receiptFaults = (data.receipt?.generator_faults ?? []).map((f) => ({
        ...f,
        message: \`\${f.message} (checked by the generator)\`
      }));
      const errors = [...r.errors, ...outsideFaults(), ...blobFaults, ...receiptFaults, ...signatureFaults];
      const steps = win === null ? r.steps : win.total_steps;
      stepsDd.textContent = win === null ? fmtInt(r.steps) : \`\${fmtInt(win.total_steps)} (\${fmtInt(r.steps)} embedded and checked here)\`;
      headDd.textContent = errors.length === 0 ? r.head_hash : \`\${r.head_hash} (the last stored step_hash: not vouched for)\`;
      bar.style.width = "100%";
      root.setAttribute("data-verify-state", "done");
      root.setAttribute("data-steps", String(steps));
      root.setAttribute("data-head-hash", r.head_hash);
      if (errors.length === 0 && signature === "not_checked") {
        status.className = "status warn";
        title.textContent = "\\u26A0 Chain intact, but the signature was NOT checked";
        statusDetail.textContent = \`The chain verified in this browser (head \${r.head_hash}), but the receipt is signed and \` + (pastedFailed.length > 0 ? \`the signature does not hold under the pasted key \${pastedFailed.join(", ")}: \` : "no public key was given: ") + "who signed it is not established. Paste the signer\\u2019s public key below to check it here, offline.";
        faultList.textContent = "";
        root.setAttribute("data-verified", "false");
        root.setAttribute("data-first-fault-kind", "no_trusted_key");
        root.setAttribute("data-fault-count", "1");
        root.removeAttribute("data-first-fault-line");
      } else if (errors.length === 0) {
        status.className = "status ok";
        const what = win === null ? \`\${plural(r.steps, "step")} verified in this browser\` : \`steps \${fmtInt(win.first_seq)}\\u2013\${fmtInt(win.first_seq + Math.max(0, r.steps - 1))} of \${fmtInt(win.total_steps)} verified in this browser\`;
        title.textContent = \`\\u2713 Chain intact: \${what}\${signature === "verified" ? "; signature verified" : ""}\`;
        statusDetail.textContent = win === null ? \`Every step hash was recomputed from the canonical JSON of its fields and every link checked, from genesis to head \${r.head_hash}.\` : \`Every embedded step hash was recomputed and every link checked, from the generator-verified step_hash \${win.anchor_hash} to head \${r.head_hash}. The \${fmtInt(win.total_steps - r.steps)} steps outside the window are not in this file.\`;
        faultList.textContent = "";
        root.setAttribute("data-verified", "true");
        for (const a of ["data-first-fault-kind", "data-first-fault-line", "data-fault-count"]) root.removeAttribute(a);
      } else {
        const first = errors[0];
        status.className = "status bad";
        title.textContent = \`\\u2717 TAMPERED OR BROKEN: \${plural(errors.length, "fault")}\${first.line !== null ? \`, first at line \${first.line}\` : ""}\`;
        statusDetail.textContent = "Do not trust this run as recorded. The faults below were found by recomputing the chain in this browser, unless marked otherwise.";
        showFaults(errors);
        root.setAttribute("data-verified", "false");
        root.setAttribute("data-first-fault-kind", first.kind);
        if (first.line !== null) root.setAttribute("data-first-fault-line", String(first.line));
        else root.removeAttribute("data-first-fault-line");
        root.setAttribute("data-fault-count", String(errors.length));
      }
      if (win === null && (r.ok !== gv.ok || r.head_hash !== gv.head_hash)) {
        statusDetail.textContent += \` Warning: the generator's own check disagreed (\${gv.ok ? "intact" : "faults"}, head \${gv.head_hash}).\`;
      }
      renderList();
      return errors;
    };
    const finish = () => {
      finished = verifier.result();
      const errors = renderVerdict();
      const first = errors[0];
      if (!userMoved && first !== void 0 && first.line !== null && filterText === "") jumpToLine(first.line);
    };
    const blobQueue = data.blobs.filter((b) => b.b64 !== void 0);
    const checkBlob = (b) => {
      const got = sha256Hex(base64Bytes(b.b64 ?? ""));
      if (got === b.digest) blobChecked.set(b.digest, true);
      else {
        blobChecked.set(b.digest, got);
        blobFaults.push({ line: null, kind: "blob_digest_mismatch", message: \`blob \${b.digest} hashes to \${got}\` });
      }
    };
    const tick = () => {
      try {
        const t0 = performance.now();
        const before = entries.length;
        let done = false;
        while (!done && performance.now() - t0 < 12) done = verifier.run(64);
        extendView(before);
        const pct = verifier.total === 0 ? 100 : Math.floor(entries.length / verifier.total * 100);
        bar.style.width = \`\${pct}%\`;
        title.textContent = \`Verifying in this browser\\u2026 \${fmtInt(entries.length)} / \${fmtInt(verifier.total)} lines\`;
        renderList(before === 0);
        if (!done) {
          setTimeout(tick, 0);
          return;
        }
        while (blobQueue.length > 0 && performance.now() - t0 < 12) checkBlob(blobQueue.shift());
        if (blobQueue.length > 0) {
          title.textContent = \`Checking bundled blobs\\u2026 \${fmtInt(blobQueue.length)} left\`;
          renderBlobs();
          setTimeout(tick, 0);
          return;
        }
        renderBlobs();
        finish();
      } catch (e) {
        fail("report_error", \`verification stopped: \${e.message}\`);
      }
    };
    setTimeout(tick, 0);
  }

  // src/report/client/main.ts
  startReport(document);
})();
`;function nv(){return PAGE_SCRIPT}l(nv,"pageScript");const Wh=`
:root { color-scheme: light dark; --bg:#fff; --fg:#1b1f24; --dim:#656d76; --line:#d0d7de; --soft:#f6f8fa; --rowline:#f0f2f4; --ok:#1a7f37; --okbg:#dafbe1; --bad:#cf222e; --badbg:#ffebe9; --warn:#9a6700; --warnbg:#fff8c5; --sel:#ddf4ff; --accent:#0969da; }
@media (prefers-color-scheme: dark) {
  :root { --bg:#0d1117; --fg:#e6edf3; --dim:#9198a1; --line:#3d444d; --soft:#151b23; --rowline:#21262d; --ok:#3fb950; --okbg:#0f2a1a; --bad:#ff7b72; --badbg:#3a1518; --warn:#d29922; --warnbg:#2e2410; --sel:#1b3350; --accent:#4493f8; }
}
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg); background: var(--bg); }
header, main, section { padding: 0 20px; }
header, main, section, #list, #detail, dl.meta dd, .status { min-width: 0; }
h1 { font-size: 18px; margin: 14px 0 8px; overflow-wrap: anywhere; }
h2 { font-size: 16px; margin: 4px 0 8px; }
h3 { font-size: 13px; margin: 14px 0 4px; color: var(--dim); text-transform: uppercase; letter-spacing: .04em; }
.status { border: 2px solid var(--line); border-radius: 8px; padding: 12px 16px; margin: 8px 0 12px; background: var(--soft); overflow-wrap: anywhere; }
.status .title { font-size: 22px; font-weight: 700; }
.status.ok { border-color: var(--ok); background: var(--okbg); color: var(--ok); }
.status.warn { border-color: var(--warn); background: var(--warnbg); color: var(--warn); }
.status.bad { border-color: var(--bad); background: var(--badbg); color: var(--bad); }
.status.bad .title { font-size: 26px; }
.status .detail { color: var(--fg); margin-top: 4px; }
.progress { height: 6px; background: var(--line); border-radius: 3px; margin-top: 8px; overflow: hidden; }
.progress div { height: 100%; width: 0; background: var(--accent); }
.status.ok .progress, .status.bad .progress, .status.warn .progress { display: none; }
ul.faults { color: var(--bad); margin: 8px 0 0; padding-left: 20px; font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 13px; overflow-wrap: anywhere; }
dl.meta { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: 2px 14px; margin: 0 0 8px; }
dl.meta dt { color: var(--dim); }
dl.meta dd { margin: 0; white-space: pre-wrap; overflow-wrap: anywhere; }
.hash, code, .code { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 12.5px; overflow-wrap: anywhere; word-break: break-all; }
.dim { color: var(--dim); font-weight: normal; }
.warn { color: var(--warn); font-weight: 600; }
.badtext { color: var(--bad); font-weight: 600; }
.oktext { color: var(--ok); font-weight: 600; }
.okline { color: var(--ok); margin: 4px 0; }
.note { color: var(--dim); }
.toolbar { display: flex; gap: 12px; align-items: center; margin: 8px 0; flex-wrap: wrap; }
#search { flex: 0 1 360px; min-width: 0; padding: 6px 8px; border: 1px solid var(--line); border-radius: 6px; font: inherit; color: inherit; background: var(--bg); }
main { display: grid; grid-template-columns: minmax(260px, 38%) minmax(0, 1fr); gap: 16px; }
#list { position: relative; height: 70vh; overflow-y: auto; border: 1px solid var(--line); border-radius: 6px; outline: none; }
#list-spacer { position: relative; }
.item { position: absolute; left: 0; right: 0; height: 26px; line-height: 26px; padding: 0 8px; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; cursor: pointer; border-bottom: 1px solid var(--rowline); }
.item:hover { background: var(--soft); }
.item.selected { background: var(--sel); box-shadow: inset 3px 0 0 var(--accent); }
.item .n { display: inline-block; min-width: 56px; color: var(--dim); font-family: ui-monospace, monospace; font-size: 12px; }
.item .mark { color: var(--ok); margin-right: 6px; }
.item.faulty { background: var(--badbg); }
.item.faulty .mark { color: var(--bad); font-weight: 700; }
#detail { height: 70vh; overflow: auto; border: 1px solid var(--line); border-radius: 6px; padding: 10px 14px; }
pre.code { margin: 0; padding: 8px; background: var(--soft); border-radius: 6px; white-space: pre-wrap; overflow-wrap: anywhere; max-height: 40vh; overflow: auto; }
ul.refs { padding-left: 18px; margin: 0; }
table.blobs { border-collapse: collapse; width: 100%; table-layout: fixed; }
table.blobs td, table.blobs th { border-bottom: 1px solid var(--line); padding: 4px 8px; text-align: left; vertical-align: top; overflow-wrap: anywhere; }
table.blobs th:first-child { width: 45%; }
ul.tree, ul.tree ul { list-style: none; padding-left: 18px; border-left: 1px solid var(--line); margin: 2px 0; }
ul.tree .node { display: inline-block; padding: 1px 6px; border: 1px solid var(--line); border-radius: 4px; margin: 2px 0; overflow-wrap: anywhere; }
ul.tree .node.badnode { border-color: var(--bad); color: var(--bad); }
ul.tree .node.current { border-color: var(--accent); background: var(--sel); font-weight: 600; }
button { font: inherit; color: inherit; background: var(--soft); border: 1px solid var(--line); border-radius: 6px; padding: 3px 10px; cursor: pointer; }
button.linklike { background: none; border: 0; padding: 0; color: inherit; text-decoration: underline; cursor: pointer; font: inherit; }
button.more { margin-top: 4px; }
.paste { margin: 8px 0; display: grid; gap: 6px; max-width: 760px; }
.paste label { display: grid; gap: 4px; color: var(--dim); }
.paste textarea { width: 100%; font-family: ui-monospace, monospace; font-size: 12px; color: inherit; background: var(--bg); border: 1px solid var(--line); border-radius: 6px; padding: 6px; }
.paste button { justify-self: start; }
.paste-result { overflow-wrap: anywhere; }
kbd { border: 1px solid var(--line); border-bottom-width: 2px; border-radius: 4px; padding: 0 4px; font-size: 12px; }
footer { padding: 16px 20px; color: var(--dim); font-size: 12px; }
@media (max-width: 800px) { main { grid-template-columns: minmax(0, 1fr); } #list, #detail { height: 50vh; } header, main, section { padding: 0 10px; } .status .title { font-size: 18px; } .status.bad .title { font-size: 20px; } }
`,Ls=l(e=>e.replace(/[&<>"']/g,t=>({"&":"&amp;","<":"&lt;",">":"&gt;",'"':"&quot;","'":"&#39;"})[t]??t),"escapeHtml");function m_(e){return JSON.stringify(e).replace(/[<>&\u2028\u2029]/g,t=>`\\u${t.charCodeAt(0).toString(16).padStart(4,"0")}`)}l(m_,"scriptJson");const zh=l(e=>`'sha256-${(0,D.createHash)("sha256").update(e,"utf8").digest("base64")}'`,"cspHash");function g_(e){const t=p_,n=["default-src 'none'",`script-src ${zh(t)}`,`style-src ${zh(Wh)}`,"img-src 'none'","base-uri 'none'","form-action 'none'"].join("; ");return`<!DOCTYPE html>
<html lang="en" data-verify-state="pending">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${Ls(n)}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="stepchain report">
<title>${Ls(e.title)}</title>
<style>${Wh}</style>
</head>
<body>
<header>
<h1>${Ls(e.title)}</h1>
<div id="status" class="status" role="status" aria-live="polite">
<div id="status-title" class="title">Not verified yet</div>
<div id="status-detail" class="detail">This page re-verifies the chain with its own script. <noscript>JavaScript is off, so NOTHING on this page has been verified.</noscript></div>
<ul id="faults" class="faults"></ul>
<div class="progress"><div id="progress-bar"></div></div>
</div>
<dl id="meta" class="meta"></dl>
</header>
<section id="receipt" hidden><h2>Receipt</h2></section>
<section>
<div class="toolbar">
<input id="search" type="search" placeholder="Search steps (press /)" aria-label="Search steps" autocomplete="off">
<label><input id="only-faults" type="checkbox"> only faults</label>
<span id="count" class="dim"></span>
<span class="dim"><kbd>\u2190</kbd><kbd>\u2192</kbd> or <kbd>j</kbd><kbd>k</kbd> step \xB7 <kbd>Home</kbd><kbd>End</kbd> first/last \xB7 <kbd>/</kbd> search \xB7 <kbd>Esc</kbd> clear</span>
</div>
</section>
<main>
<div id="list" role="listbox" aria-label="Steps" tabindex="0"><div id="list-spacer"></div></div>
<div id="detail" aria-live="polite"></div>
</main>
<section id="blobs" hidden><h2>Blobs</h2></section>
<section id="forks" hidden><h2>Fork tree</h2></section>
<footer>Generated by ${Ls(e.generator)} at ${Ls(e.generated_at)}. Self-contained: no network access; the journal's exact bytes are embedded and every hash is recomputed here.</footer>
<script type="application/json" id="stepchain-data">${m_(e)}<\/script>
<script>${t}<\/script>
</body>
</html>
`}l(g_,"buildPage");const qh=128*1024*1024,y_=1e4;function Jh(e){if(!Number.isSafeInteger(e)||e<1)throw new w(`--max-steps ${e}: not a positive integer`)}l(Jh,"checkWindowArgs");function Kh(e,t,n,s){if(n===void 0)return Math.max(0,e-t);if(Number.isSafeInteger(n)&&n>=0&&n<e&&s(n)===n)return n;for(let i=0;i<e;i++)if(s(i)===n)return i;throw new w(`--from ${n}: no step with that seq (the journal has ${e} well-formed steps)`)}l(Kh,"firstRow");function b_(e,t,n){Jh(t);const s=Hm(e),i=Kh(s.length,t,n,h=>s[h].seq),r=[];Vs(e,0,e.length,h=>{r.push(h)});const o=r.length;r.push(e.length);const a=Math.min(s.length,i+t)-1,c=i===0?1:s[i].line,u=a===s.length-1?o:s[a].line;if(c===1&&u===o)return null;const d=i===0?void 0:s[i-1];return{bytes:e.subarray(r[c-1],r[u]),window:{first_line:c,first_seq:i,anchor_hash:d===void 0?xe:d.step_hash??"",total_lines:o,total_steps:s.length},lastLine:u,steps:a-i+1}}l(b_,"reportWindow");function w_(e,t,n,s){Jh(n);const i=e.length,r=Kh(i,n,s,h=>e.at(h).row.seq),o=Math.min(i,r+n)-1,a=r===0?1:e.at(r).line,c=o===i-1?e.lines:e.at(o).line;if(a===1&&c===e.lines)return null;const u=r===0?0:e.span(r).start,d=o===i-1?e.size:e.span(o).next;return{bytes:t(u,d),window:{first_line:a,first_seq:r,anchor_hash:r===0?xe:e.at(r-1).row.step_hash,total_lines:e.lines,total_steps:i},lastLine:c,steps:o-r+1}}l(w_,"streamedWindow");function __(e){if(e===void 0)return{size:l(()=>{},"size"),read:l(()=>{},"read")};const t=new nt(tt(e),!1),n=l(s=>g().relative(e,t.pathOf(s)),"rel");return{size(s){const i=En(e,n(s));return i.kind==="file"?i.size:void 0},read(s,i){const r=rs(e,n(s),i);return r.kind==="file"?r.bytes:void 0},refused(s){const i=En(e,n(s));return i.kind==="symlink"?`${i.at} is a symbolic link (never followed)`:void 0}}}l(__,"source_casSource");function A_(e){return{size:l(t=>e.get(t)?.length,"size"),read:l(t=>e.get(t),"read")}}l(A_,"mapSource");function Va(e){return ky(bn(e).entries.map(t=>t.row.blob_refs))}l(Va,"blobRefsOf");function k_(e,t){const n=t.publicKeys??[],{verdict:s,receipt:i}=Ms(e,{publicKeys:n});if(i===void 0){const h=s.errors[0];throw new M(h?.kind??"not_a_receipt",`${e}: ${h?.message??"not a readable receipt"}`,h?.member)}const r=[];for(const h of s.errors)h.member===ft&&h.kind!=="non_canonical"||h.kind==="manifest_head_mismatch"||h.kind==="blob_digest_mismatch"||r.push({line:h.line??null,kind:h.kind,message:`${h.member===void 0?"":`${h.member}: `}${h.message}`});const o=i.signature!==void 0,a=jn(s,n.length),c=a.status==="unsigned"?"unsigned: there is no signature to check":a.status==="not_checked"?"signature NOT checked: no trusted public key was given to the generator (stepchain report --public-key FILE)":a.status==="verified"?`verified by the generator (Ed25519, node:crypto) under trusted key ${s.key_id??""}`:a.status==="invalid"?`FAILED: the signature does not verify under the given key(s) ${n.map(h=>h.keyId).join(", ")}`:a.text,u=Va(i.journal),d=[...u,...i.manifest.blob_digests.filter(h=>!u.includes(h))];return{kind:"receipt",path:e,agentId:i.manifest.agent_id,journal:i.journal,expectedHead:i.manifest.head_hash,blobs:A_(i.blobs),blobOrder:d,receipt:{manifestBytes:i.manifestBytes,...i.signature===void 0?{}:{signature:i.signature},publicKeys:n.map(h=>({keyId:h.keyId,raw:h.raw,source:h.source})),signed:o,keyId:s.key_id,signatureCheck:c,faults:r}}}l(k_,"receiptSource");function Yh(e,t,n={}){const s=g().resolve(e);if(yr(s)){let d;try{d=(0,p.statSync)(s)}catch{throw new w(`${e}: no such receipt file`)}if(!d.isFile())throw new w(`${e}: not a regular file`);return k_(s,n)}const i=wn(e,t),r={kind:"journal",path:i.file,agentId:i.agentId,blobs:__(st(i.dir)??t)};let o=n.maxSteps===void 0;try{o&&=(0,p.statSync)(i.file).size<=qh}catch{}let a;try{a=_n.open(i.file,{collectRefs:o,...n.onProgress===void 0?{}:{onProgress:n.onProgress}})}catch(d){if(d instanceof uo)return{...r,journal:hi(i.file)};throw d}ve("report:verified");const c=n.maxSteps===void 0&&a.size>qh,u=n.maxSteps??(c?y_:void 0);if(u!==void 0){const d=w_(a,(h,f)=>E_(i.file,h,f),u,n.fromStep);if(d!==null)return{...r,journal:d.bytes,verified:a.result,windowed:d,windowDone:!0,blobOrder:v_(i.file,a,d),...c?{autoWindow:{bytes:a.size}}:{}}}return{...r,journal:hi(i.file),verified:a.result,windowDone:!0,...a.blobRefs===void 0?{}:{blobOrder:a.blobRefs}}}l(Yh,"source_loadReportSource");function v_(e,t,n){const s=n.window.first_seq,i=pn(n.bytes,0,n.bytes.length,0,{strict:!1,collectRefs:!0},{steps:s,prevHash:n.window.anchor_hash}),r=t.at(s+n.steps-1).row.step_hash;if(i.faults.list.length>0||i.rows!==n.steps||i.last?.step_hash!==r)throw new N(`${e}: the journal changed since it was verified (the window's rows); verify it again`);return i.refs??[]}l(v_,"windowRefs");function E_(e,t,n){const s=(0,p.openSync)(e,"r");try{const i=Buffer.allocUnsafe(n-t);let r=0;for(;r<i.length;){const o=(0,p.readSync)(s,i,r,i.length-r,t+r);if(o===0)break;r+=o}return i.subarray(0,r)}finally{(0,p.closeSync)(s)}}l(E_,"source_readRange");const Vh=256*1024,Xh=20*1024*1024,S_=5e4,$_=64*1024*1024,x_=new Set(["signature_invalid","unsigned","no_trusted_key"]);function I_(e,t,n,s){const i=[],r=[];let o=0;for(const a of t){const c=e.blobs.refused?.(a);if(c!==void 0){i.push({digest:a,size:null,skipped:c}),r.push({line:null,kind:"blob_refused",message:`blob ${a}: ${c}`});continue}const u=e.blobs.size(a);if(u===void 0){i.push({digest:a,size:null,skipped:e.kind==="receipt"?"not bundled in the receipt":"not in the project\u2019s blob store"});continue}if(u>n){i.push({digest:a,size:u,skipped:`larger than the ${n}-byte per-blob cap`});continue}const d=e.blobs.read(a,n);if(d===void 0){i.push({digest:a,size:null,skipped:"unreadable"});continue}const h=ae(d);if(h!==a){r.push({line:null,kind:"blob_digest_mismatch",message:`blob ${a}: its bytes hash to ${h}`}),i.push({digest:a,size:d.length,skipped:"its bytes do not match its digest (not embedded)"});continue}if(o+d.length>s){i.push({digest:a,size:d.length,skipped:`the ${s}-byte total cap was reached`});continue}o+=d.length,i.push({digest:a,size:d.length,b64:d.toString("base64")})}return{blobs:i,faults:r}}l(I_,"collectBlobs");function C_(e,t={}){if(t.fromStep!==void 0&&t.maxSteps===void 0)throw new w("--from needs --max-steps (the size of the window)");const n=e.verified??Bc(e.journal,e.expectedHead===void 0?{}:{expectedHead:e.expectedHead}),s=e.windowDone?e.windowed??null:t.maxSteps===void 0?null:b_(e.journal,t.maxSteps,t.fromStep),i=s!==null&&e.windowed===void 0,r=i?s.bytes:e.journal,o=i?Va(r):e.blobOrder??Va(e.journal),{blobs:a,faults:c}=I_(e,o,t.maxBlobBytes??Vh,t.maxTotalBlobBytes??Xh),u=e.receipt?.faults??[],d=e.receipt,h={format:2,generator:zd,generated_at:(t.now??new Date).toISOString().replace(/\.\d{3}Z$/,"Z"),title:t.title??`stepchain report: ${e.agentId}`,agent_id:e.agentId,source:{kind:e.kind,path:e.path},journal_b64:r.toString("base64"),expected_head:e.expectedHead??null,generator_verify:{ok:n.ok,head_hash:n.head_hash,steps:n.steps,errors:n.errors},window:s?.window??null,receipt:d===void 0?null:{manifest_b64:d.manifestBytes.toString("base64"),signature_b64:d.signature?.toString("base64")??null,signed:d.signed,public_keys:d.publicKeys.map(S=>({key_id:S.keyId,raw_b64:S.raw.toString("base64"),source:S.source})),key_id:d.keyId,signature_check:d.signatureCheck,generator_faults:u.filter(S=>!x_.has(S.kind))},blobs:a,blob_caps:{per_blob:t.maxBlobBytes??Vh,total:t.maxTotalBlobBytes??Xh},forks:t.forks??e.forks??null},f=[...n.errors,...c,...u],y=a.filter(S=>S.b64!==void 0).length,m=g_(h),b=s===null?n.steps:s.steps,_=[];e.autoWindow!==void 0&&s!==null&&_.push(`the journal is too large for one page (${(e.autoWindow.bytes/1048576).toFixed(0)} MB): the page embeds its last ${s.steps} steps (all ${n.steps} were verified here); choose a window with --max-steps N [--from SEQ]`);const k=t.warnSteps??S_;return(b>k||m.length>(t.warnBytes??$_))&&_.push(`the page embeds ${b} steps (${(m.length/1048576).toFixed(0)} MB): a browser takes long to open and verify it; embed a window with --max-steps N (the last N steps, or from --from SEQ)`),{html:m,source:e.path,ok:f.length===0,head_hash:n.head_hash,steps:n.steps,errors:f,blobs:{embedded:y,skipped:a.length-y},window:s===null?null:{first_line:s.window.first_line,last_line:s.lastLine,steps:s.steps},warnings:_}}l(C_,"renderReport");const B_='<meta name="generator" content="stepchain report">';function O_(e,t){let n;try{n=(0,p.statSync)(e)}catch{return}if(n.isDirectory())throw new w(`${e}: is a directory`);if(t)return;let s="";try{const i=(0,p.openSync)(e,"r");try{const r=Buffer.alloc(2048);s=r.subarray(0,(0,p.readSync)(i,r,0,r.length,0)).toString("latin1")}finally{(0,p.closeSync)(i)}}catch{}if(!s.includes(B_))throw new w(`${e}: exists and is not a stepchain report; refusing to overwrite it (use --force)`)}l(O_,"checkOverwrite");function R_(e,t,n={}){O_(t,n.force??!1);const s=typeof e=="string"?Yh(e,n.root??process.cwd(),n):e,{html:i,...r}=C_(s,n);return qa(t,Buffer.from(i,"utf8")),{file:t,...r}}l(R_,"report_writeReport");function Zh(e,t){return{id:e.fork_session_id,label:e.label,branch:e.branch,from_step:e.from_step,parent_step_hash:e.parent_step_hash,steps_since:e.steps_since,journal_ok:e.journal_ok,missing:e.missing,current:e.fork_session_id===t,children:e.children.map(n=>Zh(n,t))}}l(Zh,"toReportNode");function T_(e,t){const n=new Map,s=l(a=>{for(const c of a)n.set(c.fork_session_id,c.parent_session_id),s(c.children)},"walk");s(e);let i=t;const r=new Set;for(;n.has(i)&&!r.has(i);){r.add(i);const a=n.get(i);if(a==null)break;i=a}const o=e.filter(a=>a.parent_session_id===i);return o.length===0?null:{id:i,current:i===t,children:o.map(a=>Zh(a,t))}}l(T_,"forkTreeOf");async function N_(e,t,n=process.env){return mi(e,n)===void 0?null:T_(await $i(e,n),t)}l(N_,"reportForkTree");function j_(e,t,n){if(path.isAbsolute(e.path))return loadReportSource(e.path,t,{publicKeys:n});if(e.kind==="receipt"){const i=lstatUnder(t,e.path);if(i.kind!=="file")throw new IntegrityError(i.kind==="symlink"?`${i.at} is a symbolic link`:"not a regular file");return loadReportSource(path.join(t,e.path),t,{publicKeys:n})}const s=readUnder(t,e.path);if(s.kind!=="file")throw new IntegrityError(s.kind==="symlink"?`${s.at} is a symbolic link`:"not a regular file");return{kind:"journal",path:e.path,agentId:e.id,journal:s.bytes,blobs:casSource(t)}}l(j_,"sourceOf");function sv(e,t){const n={files:[],warnings:[]},s=e.filter(o=>(o.kind==="journal"||o.kind==="receipt")&&o.status!=="deleted"),i=t.limit??100;s.length>i&&n.warnings.push(`HTML reports: ${s.length-i} of ${s.length} left out (limit ${i})`),s.length>0&&mkdirSync(t.outDir,{recursive:!0});const r=new Set;for(const o of s.slice(0,i)){let a=`${o.kind}-${o.id.replace(/[^A-Za-z0-9_.-]/g,"_")}`;for(let u=2;r.has(a);u++)a=`${o.kind}-${o.id.replace(/[^A-Za-z0-9_.-]/g,"_")}-${u}`;r.add(a);const c=path.join(t.outDir,`${a}.html`);try{writeReport(j_(o,t.root,t.publicKeys??[]),c,{root:t.root,force:!0,maxTotalBlobBytes:t.maxTotalBlobBytes??2*1024*1024,title:`stepchain: ${o.path}`}),n.files.push(c)}catch(u){if(!(u instanceof StepchainError))throw u;n.warnings.push(`HTML report for ${o.path}: ${u.message}`)}}return n}l(sv,"writeHtmlReports");const F_={name:["check"],usage:"[--root DIR] [--base REF] [--journals GLOB]... [--runs GLOB]... [--receipts GLOB]... [--public-key FILE]... [--expected-heads FILE] [--warn-flagged] [--allow-empty] [--markdown] [--json]",summary:"Check a repository's committed journals, run journals and receipts as the GitHub Action does; with --base, history must only be appended to since REF. A check that matches nothing fails unless --allow-empty. Exit 0 holds, 1 not.",description:"Finds the journals, run journals and receipts by the globs (defaults as the Action), verifies each, and with --base checks that every journal at REF was only appended to. A signed receipt fails unless a --public-key checks it.",options:{...Z,...J,base:{kind:"value",value:"REF",description:"A commit (branch, tag, hash) whose journals must only have been appended to since."},journals:{kind:"list",value:"GLOB",description:"Where per-step journals are (default .sdd/runtime/journal/*/000000.jsonl; `none`: not checked)."},runs:{kind:"list",value:"GLOB",description:"Where run journals are (default .sdd/runs/*/journal.jsonl; `none`: not checked)."},receipts:{kind:"list",value:"GLOB",description:"Where receipts are (default **/*.receipt.tar and .tar.gz, .tgz; `none`: not checked)."},"public-key":kn,"expected-heads":{kind:"value",value:"FILE",description:`A JSON object {"agent_id": "head"}: each named agent's journal must end at that head.`},"warn-flagged":{kind:"flag",description:"Report flagged mutations as warnings instead of failing."},"allow-empty":{kind:"flag",description:"Accept a check that matches nothing (no journal, run journal or receipt; a glob matching no file)."},markdown:{kind:"flag",description:"Print the Action's job summary (Markdown) instead of lines."}},examples:[{run:"stepchain check --base origin/main",what:"what the PR check will say, before pushing"},{run:"stepchain check --public-key keys/receipts.pub --json",what:"signed receipts, as JSON"}],exitCodes:{0:"everything found holds",1:"a fault (each printed), or nothing matched (without --allow-empty)",2:"usage or input error (a bad --base ref)"},async run(e,t){q(e,[],"check");const n=ne(e,t),s=e.values.get("base"),i=s===void 0?void 0:await Q0(n,s),r=e.values.get("expected-heads"),o=l(b=>e.lists.get(b),"list"),a=l(b=>o(b)?.length===1&&o(b)[0]==="none","off"),c=l(b=>a(b)?void 0:o(b),"globs"),u=c("journals"),d=c("runs"),h=c("receipts"),f=await l_({root:n,...i===void 0?{}:{base:i},...u===void 0?{}:{journals:u},...d===void 0?{}:{runs:d},...h===void 0?{}:{receipts:h},publicKeys:(o("public-key")??[]).map(b=>ds(g().resolve(t.cwd,b))),keyHint:"--public-key FILE",...r===void 0?{}:{expectedHeads:f_(is(r,t,"expected heads"),r),expectedHeadsPath:g().relative(n,g().resolve(t.cwd,r)).split(g().sep).join("/")},failOnFlaggedMutations:!e.flags.has("warn-flagged"),...a("journals")?{verifyJournals:!1}:{},...a("runs")?{verifyRuns:!1}:{},...a("receipts")?{verifyReceipts:!1}:{}}),y=e.flags.has("allow-empty")?[]:u_(f,{...u===void 0?{}:{journal:u},...d===void 0?{}:{run:d},...h===void 0?{}:{receipt:h}}),m=f.ok&&y.length===0;if(e.flags.has("json"))t.json({...c_(f),ok:m,nothing_matched:y});else if(e.flags.has("markdown"))t.out(J0(f,{forks:await M0(n,void 0,t.env),notes:y.map(b=>`${b} (stepchain check --allow-empty accepts that)`)}));else{for(const _ of f.items)t.out(R(`${_.ok?"OK  ":"FAIL"} ${_.kind} ${_.path}: ${_.steps} step${_.steps===1?"":"s"}${_.head?`, head ${_.head}`:""} (${_.status}${_.appendOnly&&_.appendOnly!==_.status?`, ${_.appendOnly}`:""})`));const b=y.length===0?"":`; ${y.length} pattern${y.length===1?"":"s"} matched nothing`;t.out(R(`${m?"OK":"FAIL"}: ${f.verified} verified, ${f.failed} failed${i===void 0?"":`, append-only since ${s} (${i.slice(0,12)})`}${b}`))}for(const b of f.faults)t.err(`${b.severity==="error"?"":"warning: "}${b.line===null?b.path:`${b.path}:${b.line}`}: ${b.message}`);for(const b of y)t.err(`${b} (--allow-empty accepts that)`);return m?0:1}},M_=200;function Xa(e){if(!/^[\x20-\x7e]*$/.test(e))return;const t=e.replace(/[^A-Za-z0-9]/g,"-");return t.length<=M_?t:void 0}l(Xa,"projectDirName");const L_=4<<20,P_=65536;function D_(e){try{const t=JSON.parse(e);return typeof t=="object"&&t!==null&&!Array.isArray(t)?t:void 0}catch{return}}l(D_,"parseLine");function H_(e,t){if(e.type!=="assistant")return;const n=e.message;return typeof n!="object"||n===null||!Array.isArray(n.content)?void 0:n.content.some(i=>typeof i=="object"&&i!==null&&i.type==="tool_use"&&i.id===t)&&typeof n.model=="string"?n.model:void 0}l(H_,"assistantModelFor");function Q_(e,t,n=L_){let s;try{s=(0,p.openSync)(e,"r")}catch{return}try{const i=(0,p.fstatSync)(s);if(!i.isFile())return;const r=Buffer.from(JSON.stringify(t)),o=Math.max(0,i.size-n);let a=i.size,c=Buffer.alloc(0);for(;a>o;){const u=Math.max(o,a-P_),d=Buffer.concat([Mt(s,u,a-u),c]),h=u>0?d.indexOf(10):-1;if(u>0&&h<0){c=d,a=u;continue}c=u>0?d.subarray(0,h):Buffer.alloc(0);const f=d.subarray(h+1);for(let y=f.lastIndexOf(r);y>=0;){const m=f.lastIndexOf(10,y)+1;let b=f.indexOf(10,y);b<0&&(b=f.length);const _=D_(f.subarray(m,b).toString("utf8")),k=_===void 0?void 0:H_(_,t);if(k!==void 0)return k;y=m===0?-1:f.lastIndexOf(r,m-1)}a=u}return}catch{return}finally{(0,p.closeSync)(s)}}l(Q_,"modelOfToolUse");function U_(e,t){if(g().basename(e)!==`${t}.jsonl`)return;const n=g().dirname(e),s=g().dirname(n);if(g().basename(s)==="projects")return{projectsDir:s,dirName:g().basename(n)}}l(U_,"transcriptLayout");const sn="7d3a9c1e-5b2f-4c8d-9e0a-1f2b3c4d5e6f",ef="claude-sonnet-4-5-20250929",wr="tests/test_stats.py fails. Fix it.",tf=`def mean(xs):
    return sum(xs) / (len(xs) - 1)
`,G_=`def mean(xs):
    return sum(xs) / len(xs)
`,W_={"src/stats.py":tf,"tests/test_stats.py":`from src.stats import mean


def test_mean():
    assert mean([1, 2, 3]) == 2.0
`},_r="sum(xs) / (len(xs) - 1)",Ar="sum(xs) / len(xs)",Mn="2c9e4b1a-8f3d-4e6a-b1c7-0d5f9a8e7b6c",Za=`Exit code 1
F                                                                        [100%]
FAILED tests/test_stats.py::test_mean - assert 3.0 == 2.0
1 failed in 0.02s`;function z_(e,t){const n={session_id:sn,transcript_path:t,cwd:e},s={...n,prompt_id:Mn,permission_mode:"acceptEdits"},i=`${e}/src/stats.py`;return[{label:"SessionStart (startup)",payload:{...n,hook_event_name:"SessionStart",source:"startup"}},{label:"UserPromptSubmit (the prompt)",payload:{...s,hook_event_name:"UserPromptSubmit",prompt:wr}},{label:'PostToolUseFailure Bash "pytest -q" (exit 1)',payload:{...s,hook_event_name:"PostToolUseFailure",tool_name:"Bash",tool_input:{command:"pytest -q",description:"Run the test suite"},tool_use_id:"toolu_01TestRun",error:Za,is_interrupt:!1,duration_ms:412}},{label:"PostToolUse Edit src/stats.py",writes:{"src/stats.py":G_},payload:{...s,hook_event_name:"PostToolUse",tool_name:"Edit",tool_input:{file_path:i,old_string:_r,new_string:Ar,replace_all:!1},tool_response:{filePath:i,oldString:_r,newString:Ar,originalFile:tf,structuredPatch:[{oldStart:1,oldLines:2,newStart:1,newLines:2,lines:[" def mean(xs):","-    return sum(xs) / (len(xs) - 1)","+    return sum(xs) / len(xs)"]}],userModified:!1,replaceAll:!1},tool_use_id:"toolu_02FixAdd",duration_ms:6}},{label:'PostToolUse Bash "pytest -q"',payload:{...s,hook_event_name:"PostToolUse",tool_name:"Bash",tool_input:{command:"pytest -q",description:"Run the test suite again"},tool_response:{stdout:`.                                                                        [100%]
1 passed in 0.01s`,stderr:"",interrupted:!1,isImage:!1,noOutputExpected:!1},tool_use_id:"toolu_03TestAgain",duration_ms:398}},{label:"PreCompact (auto)",payload:{...s,hook_event_name:"PreCompact",trigger:"auto",custom_instructions:null}},{label:"SessionStart (compact)",payload:{...n,prompt_id:Mn,hook_event_name:"SessionStart",source:"compact",model:ef}},{label:"Stop",payload:{...s,hook_event_name:"Stop",stop_hook_active:!1,last_assistant_message:"mean() divided by n - 1; it divides by n now and the test passes."}},{label:"SessionEnd",payload:{...n,prompt_id:Mn,hook_event_name:"SessionEnd",reason:"other"}}]}l(z_,"demoHooks");function q_(e){const t=Date.parse("2026-12-02T09:00:00.000Z");let n=0;const s=l(()=>new Date(t+250*n++).toISOString(),"ts"),i={userType:"external",entrypoint:"cli",cwd:e,sessionId:sn,version:"2.1.328",gitBranch:"main"},r=l(d=>`5f0c${String(d).padStart(4,"0")}-1d2e-4f3a-8b4c-5d6e7f8a9b0c`,"uuid"),o=l((d,h,f,y,m)=>({parentUuid:r(h),isSidechain:!1,message:{id:f,type:"message",role:"assistant",model:ef,content:y,stop_reason:m,stop_sequence:null,usage:{input_tokens:1200,output_tokens:40}},type:"assistant",uuid:r(d),timestamp:s(),...i}),"assistant"),a=l((d,h,f,y,m,b)=>({parentUuid:r(h),isSidechain:!1,promptId:Mn,type:"user",message:{role:"user",content:[{tool_use_id:f,type:"tool_result",content:y,is_error:m}]},uuid:r(d),timestamp:s(),toolUseResult:b,sourceToolAssistantUUID:r(h),...i}),"result"),c=`${e}/src/stats.py`;return[{type:"queue-operation",operation:"enqueue",timestamp:s(),sessionId:sn,content:wr},{type:"queue-operation",operation:"dequeue",timestamp:s(),sessionId:sn},{parentUuid:null,isSidechain:!1,promptId:Mn,type:"user",message:{role:"user",content:wr},uuid:r(1),timestamp:s(),permissionMode:"acceptEdits",...i},o(2,1,"msg_01A",[{type:"tool_use",id:"toolu_01TestRun",name:"Bash",input:{command:"pytest -q",description:"Run the test suite"}}],"tool_use"),a(3,2,"toolu_01TestRun",Za,!0,`Error: ${Za}`),{type:"last-prompt",lastPrompt:wr,leafUuid:r(3),sessionId:sn},o(4,3,"msg_02B",[{type:"tool_use",id:"toolu_02FixAdd",name:"Edit",input:{replace_all:!1,file_path:c,old_string:_r,new_string:Ar}}],"tool_use"),a(5,4,"toolu_02FixAdd",`The file ${c} has been updated successfully.`,!1,{filePath:c,oldString:_r,newString:Ar}),o(6,5,"msg_03C",[{type:"tool_use",id:"toolu_03TestAgain",name:"Bash",input:{command:"pytest -q",description:"Run the test suite again"}}],"tool_use"),a(7,6,"toolu_03TestAgain",`.                                                                        [100%]
1 passed in 0.01s`,!1,{stdout:"1 passed in 0.01s",stderr:"",interrupted:!1}),o(8,7,"msg_04D",[{type:"text",text:"mean() divided by n - 1; it divides by n now and the test passes."}],"end_turn"),{parentUuid:null,logicalParentUuid:r(8),isSidechain:!1,type:"system",subtype:"compact_boundary",content:"Conversation compacted",isMeta:!1,timestamp:s(),uuid:r(9),level:"info",compactMetadata:{trigger:"auto",preTokens:167353,postTokens:4123},...i},{parentUuid:r(9),isSidechain:!1,promptId:Mn,type:"user",message:{role:"user",content:`This session is being continued from a previous conversation that ran out of context. The summary below covers the earlier portion of the conversation.

The test of mean() failed: it divided by n - 1. It was fixed and the test passes.`},isCompactSummary:!0,uuid:r(10),timestamp:s(),...i}].map(d=>JSON.stringify(d)).join(`
`)+`
`}l(q_,"demoTranscript");async function J_(e){const t=`claude-${sn}`,n=g().join(e.root,".sdd","claude-config"),s=Xa(e.root);if(s===void 0){e.section("Claude Code hooks"),e.say(`(skipped: Claude Code's session directory name for ${e.root} cannot be derived safely)`);return}const i=g().join(n,"projects",s,`${sn}.jsonl`);e.section("Claude Code: one command installs the hooks");const r=await e.run(["init","claude"],{quiet:!0});if(r.code!==0)throw new Error(`demo: init claude failed: ${r.stderr}`);const o=r.stdout.trimEnd().split(`
`),a=o.filter(m=>/^(---|\+\+\+|@@|[-+ ])/.test(m));e.say("$ stepchain init claude");for(const m of a.slice(0,16))e.say(`  ${m}`);e.say(`  ... (${a.length-16} more lines of the diff)`);for(const m of o.slice(a.length))e.say(`  ${m}`);const c=await e.run(["init","claude"]);if(c.code!==0)throw new Error(`demo: init claude (again) failed: ${c.stderr}`);e.section("A Claude Code session, recorded by its hooks"),e.say("Claude Code pipes each hook event as JSON into `stepchain hook claude`. These are the events of a"),e.say("session (Claude Code 2.1.328) that runs a failing test, fixes mean(), runs it again, and is compacted:");for(const[m,b]of Object.entries(W_))(0,p.mkdirSync)(g().dirname(g().join(e.root,m)),{recursive:!0}),(0,p.writeFileSync)(g().join(e.root,m),b);(0,p.mkdirSync)(g().dirname(i),{recursive:!0}),(0,p.writeFileSync)(i,q_(e.root));for(const m of z_(e.root,i)){for(const[_,k]of Object.entries(m.writes??{}))(0,p.writeFileSync)(g().join(e.root,_),k);const b=await e.run(["hook","claude"],{quiet:!0,stdin:Buffer.from(JSON.stringify(m.payload))});if(b.code!==0)throw new Error(`demo: hook claude (${m.label}) failed: ${b.stderr}`);e.say(`  ${m.label.padEnd(46)} exit ${b.code}`)}e.say(`Three tool calls, three steps of the journal ${t}:`),await e.run(["verify",t]),await e.run(["replay",t]),e.say("Its run journal: the claude adapter observed from the start, the compaction pinned as a mutation:"),await e.run(["run","verify",t]),e.section("Fork at the failing test run, and resume the conversation there");const u=await e.run(["fork",t,"--from-step","0","--resume"],{quiet:!0});if(u.code!==0)throw new Error(`demo: fork --resume failed: ${u.stderr}`);e.say(`$ stepchain fork ${t} --from-step 0 --resume`);for(const m of u.stdout.trimEnd().split(`
`))e.say(`  ${m}`);const d=/^ {2}worktree {3}(.+)$/m.exec(u.stdout)?.[1],h=/^ {2}transcript (.+) \(lines/m.exec(u.stdout)?.[1];if(d===void 0||h===void 0)throw new Error("demo: fork --resume printed no worktree");e.say("src/stats.py in the fork (the files of step 0, before the fix):"),e.say(`  ${(0,p.readFileSync)(g().join(d,"src","stats.py"),"utf8").trimEnd().split(`
`).join(`
  `)}`);const y=JSON.parse((0,p.readFileSync)(h,"utf8").trimEnd().split(`
`).at(-1)).message.content[0];e.say(`The copied conversation ends with the result of ${y.tool_use_id}:`),e.say(`  ${y.content.split(`
`).join(`
  `)}`),e.say("Run the command above (with Claude Code installed) and the fork's next step is recorded as step 1 of"),e.say("the fork, on top of the verified prefix."),e.epilogue.push(`stepchain replay ${t}          # the recorded Claude Code session`,`stepchain run verify ${t}      # its run journal, with the compaction`)}l(J_,"demoClaude");function nf(e,t,n){return{root:e,env:t,epilogue:[],section:l(i=>n(`
== ${i} ==
`),"section"),say:l(i=>n(`${i}
`),"say"),async run(i,r={}){const o=r.cwd??e;let a="",c="";const d=await op(i,{out:l(h=>{a+=`${h}
`},"out"),err:l(h=>{c+=`${h}
`},"err"),json:l(h=>{a+=`${Vr(h)}
`},"json"),readStdin:l(()=>r.stdin??Buffer.alloc(0),"readStdin"),isTTY:!1,env:t,cwd:o});if(!r.quiet){n(`$ stepchain ${i.map(f=>/^[\w./:=@-]+$/.test(f)?f:`'${f.replace(/'/g,"'\\''")}'`).join(" ")}
`);const h=l(f=>f.replace(/\n$/,"").split(`
`).map(y=>`  ${y}`).join(`
`),"indent");a&&n(`${h(a)}
`),c&&n(`${h(c)}
`),n(`  (exit ${d})
`)}return{code:d,stdout:a,stderr:c}}}}l(nf,"makeContext");const V="agent-demo",K_={"README.md":`# calc

A tiny calculator the demo agent works on.
`,"src/calc.py":`def add(a, b):
    return a - b  # bug: should add
`,"tests/test_calc.py":`from src.calc import add


def test_add():
    assert add(2, 3) == 5
`},Y_=[{model:"claude-3-7-sonnet-20250219",prompt:"The test suite fails. Find out why.",tool_call:{name:"run",args:{cmd:"pytest -q"}},tool_result:{exit_code:1,stdout:"FAILED tests/test_calc.py::test_add - assert -1 == 5"}},{model:"claude-3-7-sonnet-20250219",prompt:"Read the implementation of add().",tool_call:{name:"read_file",args:{path:"src/calc.py"}},tool_result:{content:`def add(a, b):
    return a - b  # bug: should add
`}},{model:"claude-3-7-sonnet-20250219",prompt:"Fix the bug in add().",tool_call:{name:"edit_file",args:{path:"src/calc.py",old:"a - b  # bug: should add",new:"a + b"}},tool_result:{ok:!0},writes:{"src/calc.py":`def add(a, b):
    return a + b
`}},{model:"claude-3-7-sonnet-20250219",prompt:"Run the tests again.",tool_call:{name:"run",args:{cmd:"pytest -q"}},tool_result:{exit_code:0,stdout:"1 passed in 0.01s"}},{model:"claude-3-7-sonnet-20250219",prompt:"Summarise the change for the pull request. R\xE9sum\xE9 \u2713",tool_call:null,tool_result:{summary:"add() subtracted instead of adding; fixed and the test passes."}}];async function V_(e){e.section("Fork the run at step 1 into a sibling git worktree"),e.say("Every append also stored the worktree as a commit under refs/stepchain/snapshots/<agent>/<seq>,"),e.say("without touching the index, HEAD or the files. Fork at step 1, before the fix of step 2:");const t=await e.run(["fork",V,"--from-step","1","--label","try another fix","--json"]);if(t.code!==0)throw new Error(`demo: fork failed: ${t.stderr}`);const n=JSON.parse(t.stdout),s=l(r=>(0,p.readFileSync)(g().join(r,"src","calc.py"),"utf8").trimEnd(),"calc");e.say("src/calc.py in the fork (the files of step 1):"),e.say(`  ${s(n.fork_worktree).split(`
`).join(`
  `)}`),e.say("src/calc.py in the main tree (fixed at step 2):"),e.say(`  ${s(e.root).split(`
`).join(`
  `)}`),e.section("The fork keeps recording: its journal continues the parent's prefix [0..1]"),(0,p.writeFileSync)(g().join(n.fork_worktree,"src","calc.py"),`def add(a, b):
    return sum((a, b))
`);const i=await e.run(["append",n.fork_session_id,"--root",n.fork_worktree,"--model","claude-3-7-sonnet-20250219","--prompt","Try a different fix: use sum().","--tool-call",'{"name":"edit_file","args":{"path":"src/calc.py"}}',"--tool-result",'{"ok":true}'],{quiet:!0});if(i.code!==0)throw new Error(`demo: append in the fork failed: ${i.stderr}`);e.say(`(${i.stdout.split(`
`)[0]})`),await e.run(["verify",n.fork_session_id,"--root",n.fork_worktree]),e.section("Every fork of the repository, as a tree"),await e.run(["forks"]),e.epilogue.push("stepchain forks                                   # the fork tree",`cat ${g().relative(e.root,n.fork_worktree)}/src/calc.py        # the fork's own files`)}l(V_,"demoFork");async function X_(e){e.section("Record a run: one hash-chained journal row per step");for(const[r,o]of Y_.entries()){for(const[d,h]of Object.entries(o.writes??{}))(0,p.writeFileSync)(g().join(e.root,d),h);const a=g().join(e.root,".sdd","demo-inputs",`step-${r}.txt`);(0,p.mkdirSync)(g().dirname(a),{recursive:!0}),(0,p.writeFileSync)(a,`user turn ${r}: ${o.prompt}
`);const c=["append",V,"--input",a,"--model",o.model,"--prompt",o.prompt];o.tool_call!==null&&c.push("--tool-call",JSON.stringify(o.tool_call)),c.push("--tool-result",JSON.stringify(o.tool_result));const u=await e.run(c,{quiet:r>0});if(u.code!==0)throw new Error(`demo: append failed: ${u.stderr}`);r>0&&e.say(`  step ${r}: ${o.prompt}`)}e.section("Verify the chain from genesis"),await e.run(["verify",V]),e.section("Tamper with a copy: change one tool result, keep the stored hash");const t=Lt(e.root,V),n=g().join(e.root,".sdd","tampered-copy");(0,p.mkdirSync)(n,{recursive:!0});const s=g().join(n,"000000.jsonl");(0,p.copyFileSync)(t,s);const i=(0,p.readFileSync)(s,"utf8").split(`
`);i[3]=i[3].replace("1 passed in 0.01s","9 passed in 0.01s"),(0,p.writeFileSync)(s,i.join(`
`)),e.say("The copy claims 9 tests passed at step 3. The operator sees:"),await e.run(["verify",s]),e.say("and appending to a tampered journal is refused (fail-closed):"),await e.run(["append",n,"--prompt","continue"])}l(X_,"demoJournal");function Z_(e,t){const s=gy((0,p.readFileSync)(e)).map(o=>({name:o.name,data:Buffer.from(o.data)})),i=s.find(o=>o.name==="journal/000000.jsonl"),r=i.data.indexOf('"prompt":"')+10;i.data[r]=i.data[r]^1,(0,p.writeFileSync)(t,bh(s,Math.floor(Date.now()/1e3)))}l(Z_,"tamperedCopy");async function eA(e){const t=g().join(e.root,".sdd","demo-receipts");(0,p.mkdirSync)(t,{recursive:!0});const n=l(s=>g().relative(e.root,g().join(t,s)),"rel");e.section("Receipts: a signing key"),await e.run(["keygen","-o",n("signing.pem"),"--public",n("verify.pem")]),e.section("Export a signed, portable receipt (the journal is verified first)"),await e.run(["export",V,"-o",n("run.receipt.tar"),"--sign-key",n("signing.pem")]),e.section("Verify it offline, anywhere: nothing is extracted to disk"),await e.run(["receipt","verify",n("run.receipt.tar"),"--public-key",n("verify.pem"),"--require-blobs"]),e.section("Publish with privacy redaction (opt-in; prompts and tool results become <<redacted>>)"),await e.run(["publish",V,"-o",n("published.receipt.tar")]),await e.run(["publish",V,"-o",n("published.receipt.tar"),"--opt-in","--sign-key",n("signing.pem")]),await e.run(["receipt","verify",n("published.receipt.tar"),"--public-key",n("verify.pem")]),e.section("A tampered receipt: one byte of one prompt flipped in a copy"),Z_(g().join(t,"run.receipt.tar"),g().join(t,"tampered.receipt.tar")),e.say(`The copy's first prompt now starts "Uhe test suite..."; the manifest and its signature are untouched,`),e.say("but the chain no longer recomputes to the signed head:"),await e.run(["receipt","verify",n("tampered.receipt.tar"),"--public-key",n("verify.pem")]),e.epilogue.push(`stepchain receipt verify ${n("run.receipt.tar")} --public-key ${n("verify.pem")} --json   # a signed receipt`)}l(eA,"demoReceipts");async function tA(e){e.section("An offline HTML report for the pull request: it re-verifies the chain in the browser");const t=g().join(e.root,".sdd","report");(0,p.mkdirSync)(t,{recursive:!0});const n=l(r=>g().relative(e.root,g().join(t,r)),"rel"),s=await e.run(["report",V,"-o",n(`${V}.html`)]);if(s.code!==0)throw new Error(`demo: report failed: ${s.stderr}`);e.say("No network, no external script: the journal's bytes, the bundled blobs and the verifier are all in the file.");const i=g().join(e.root,".sdd","tampered-copy");(0,p.existsSync)(g().join(i,"000000.jsonl"))&&(e.say("The tampered copy gets a report too: it is written (that is the point), says TAMPERED with the line, and exits 1:"),await e.run(["report",g().relative(e.root,i),"-o",n("tampered.html")])),e.epilogue.push(`open ${n(`${V}.html`)}    # the HTML report (xdg-open on Linux): verifies in the browser, \u2190/\u2192 to walk`,`open ${n("tampered.html")}           # the tampered copy's report: red, first fault at line 4`)}l(tA,"demoReport");function nA(e){const t=g().join(e,".sdd","worktrees");if((0,p.existsSync)(t))for(const n of(0,p.readdirSync)(t).sort().reverse()){const s=g().join(t,n,".sdd","runtime","journal",n,pe);if((0,p.existsSync)(s))return{id:n,file:s}}}l(nA,"forkJournal");async function sA(e){e.section("Replay: the run as a table of steps (verified first)"),await e.run(["replay",V]),e.section("One step in full: fields, blobs with sizes and previews, what changed since the step before"),await e.run(["show",V,"2"]),e.section("Where two runs part: the first divergence, field by field");const t=l(r=>g().relative(e.root,r),"rel");let n=nA(e.root);const s=n?.id;if(n===void 0){const r=`${V}-alt`,o=(0,p.readFileSync)(Lt(e.root,V),"utf8").split(`
`).slice(0,3);(0,p.mkdirSync)(Be(e.root,r),{recursive:!0}),(0,p.writeFileSync)(Lt(e.root,r),`${o.join(`
`)}
`);const a=await e.run(["append",r,"--model","claude-3-7-sonnet-20250219","--prompt","Skip the tests.","--tool-result",'{"ok":true}'],{quiet:!0});if(a.code!==0)throw new Error(`demo: append to the copy failed: ${a.stderr}`);n={id:r,file:Lt(e.root,r)}}e.say(`The sample run against ${n.id} (exit 1: they diverge):`),await e.run(["diff",V,t(g().dirname(n.file))]),e.say("and a run against itself (exit 0):"),await e.run(["diff",V,t(Lt(e.root,V))]);const i=g().join(e.root,".sdd","demo-receipts","published.receipt.tar");if((0,p.existsSync)(i)){e.section("Replay of a published receipt: verified, redacted fields shown as <<redacted>>");const r=g().join(g().dirname(i),"verify.pem");await e.run(["replay",t(i),"--limit","3",...(0,p.existsSync)(r)?["--public-key",t(r)]:[]])}e.epilogue.push(`stepchain replay ${V}                      # walk the run on a terminal: n/p, g/G, seq+Enter, /search, Enter, f, q`,`stepchain show ${V} 3 --json               # one step, as stored, with its blobs`,`stepchain diff ${V} ${n.id} --json   # where two runs part (a fork is found by its id)`,...s===void 0?[]:[`stepchain fork rm ${s} --force   # remove the fork`])}l(sA,"demoReplay");const Ln="d3m0-5e55-4a1d-9c0e-000000000001",iA=[{type:"system",subtype:"init",session_id:Ln,model:"claude-sonnet-4-5-20250929",tools:["Bash","Read","Edit"]},{type:"assistant",session_id:Ln,message:{role:"assistant",content:[{type:"tool_use",id:"toolu_1",name:"Bash",input:{command:"pytest -q"}}]}},{type:"user",session_id:Ln,message:{role:"user",content:[{type:"tool_result",tool_use_id:"toolu_1",content:"FAILED tests/test_calc.py::test_add"}]}},{type:"system",subtype:"compact_boundary",session_id:Ln,compact_metadata:{trigger:"auto",pre_tokens:167353}},{type:"assistant",session_id:Ln,message:{role:"assistant",content:[{type:"text",text:"add() subtracts; fixing it."}]}},{type:"result",subtype:"success",session_id:Ln,num_turns:2,result:"Fixed add()."}];async function rA(e){const t=g().join(e.root,".sdd","demo-inputs");(0,p.mkdirSync)(t,{recursive:!0});const n=g().join(t,"claude-stream.jsonl");(0,p.writeFileSync)(n,iA.map(d=>JSON.stringify(d)).join(`
`)+`
`);const s=g().relative(e.root,n),i=l(async(d,h,f=!1)=>{const y=await d.run(h,{quiet:f});if(y.code!==0)throw new Error(`demo: stepchain ${h.join(" ")} failed: ${y.stderr}`)},"must");e.section("Run journal: a live run pins a provider-side compaction into its chain"),await i(e,["run","record","live-run","--event","prompt","--data",'{"text": "The test suite fails. Fix it."}']),e.say("Claude Code compacted the context mid-run; ingesting its stream-json transcript records the"),e.say("adapter as able to observe that, and chains the compaction as a content-addressed entry:"),await i(e,["run","ingest","live-run","--agent",V,"--claude-stream",s]),await i(e,["run","record","live-run","--event","response","--data",'{"text": "Fixed add()."}'],!0),await e.run(["run","verify","live-run"]),e.section("Deterministic replay: a compaction that arrives anyway is flagged, and verify fails closed");const r={...e.env,STEPCHAIN_REPLAY_RUN_ID:"live-run"},o=nf(e.root,r,d=>e.say(d.replace(/\n$/,"")));if(e.say("With STEPCHAIN_REPLAY_RUN_ID=live-run (hermetic replay), the provider compacts again:"),await i(o,["run","record","replay-run","--event","prompt","--data",'{"text": "The test suite fails. Fix it."}'],!0),await o.run(["run","ingest","replay-run","--agent",V,"--claude-stream",s]),await i(o,["run","record","replay-run","--event","response","--data",'{"text": "Fixed add()."}'],!0),await o.run(["run","verify","replay-run"]),e.section("Diff: where a clean replay parts from the live run, and why"),e.say("A replay in which the provider did not compact (its adapter saw nothing to report):"),await i(o,["run","record","clean-replay","--event","prompt","--data",'{"text": "The test suite fails. Fix it."}'],!0),await i(o,["run","capability","clean-replay","--adapter","claude","--capability","observed"],!0),await i(o,["run","record","clean-replay","--event","response","--data",'{"text": "Fixed add()."}'],!0),await e.run(["run","verify","clean-replay"]),e.say("The divergence is attributed to the compaction, with its kind and journal index (exit 1):"),await e.run(["run","diff","live-run","clean-replay"]),await e.run(["run","diff","live-run","clean-replay","--json"]),e.epilogue.push("stepchain run verify live-run --json               # chain, pinned mutations, capabilities","stepchain run diff live-run clean-replay          # where and why two runs part"),e.section("Audit trail: everything this demo did, HMAC-chained outside the journals"),!rd(e.env)){e.say("(audit logging is off here: STEPCHAIN_AUDIT=off)");return}e.say(`(key at ${e.env.STEPCHAIN_AUDIT_KEY_PATH}, created 0600 on first use)`),await e.run(["audit","verify"]),await e.run(["audit","query"]),await e.run(["audit","query","--event-type","provider.state_mutation","--json"]),e.say("An edited copy of the audit log (the first entry's resource id changed) does not verify:");const a=g().join(e.root,".sdd","tampered-audit");(0,p.cpSync)(g().join(e.root,".sdd","audit"),a,{recursive:!0});const c=(0,p.readdirSync)(a).filter(d=>d.endsWith(".jsonl")).sort()[0],u=g().join(a,c);(0,p.writeFileSync)(u,(0,p.readFileSync)(u,"utf8").replace('"resource_id": "','"resource_id": "edited-')),await e.run(["audit","verify","--dir",g().relative(e.root,a)]),e.epilogue.push(`STEPCHAIN_AUDIT_KEY_PATH=${e.env.STEPCHAIN_AUDIT_KEY_PATH} stepchain audit verify`,`STEPCHAIN_AUDIT_KEY_PATH=${e.env.STEPCHAIN_AUDIT_KEY_PATH} stepchain audit query --event-type replay.step`)}l(rA,"demoRuns");const oA=[X_,eA,V_,sA,J_,rA,tA];function el(e,t){Oe(e,t)}l(el,"git");async function aA(e,t){const n=(0,p.mkdtempSync)(g().join((0,Ft.tmpdir)(),"stepchain-demo-"));for(const[o,a]of Object.entries(K_))(0,p.mkdirSync)(g().dirname(g().join(n,o)),{recursive:!0}),(0,p.writeFileSync)(g().join(n,o),a);(0,p.writeFileSync)(g().join(n,".gitignore"),`.sdd/
`),el(n,["init","-q","-b","main"]),el(n,["add","-A"]),el(n,["-c","user.name=demo","-c","user.email=demo@stepchain.invalid","commit","-q","-m","initial"]);const s={...t,STEPCHAIN_AUDIT_KEY_PATH:g().join(n,".sdd-keys","audit.key"),GIT_AUTHOR_NAME:"stepchain demo",GIT_AUTHOR_EMAIL:"demo@stepchain.invalid",GIT_COMMITTER_NAME:"stepchain demo",GIT_COMMITTER_EMAIL:"demo@stepchain.invalid"};e(`stepchain demo: a sample agent run in ${n}
`);const i=nf(n,s,e);for(const o of oA)await o(i);e(`
== Walk it yourself ==
`),e(`cd ${n}
`);const r=process.argv[1]!==void 0&&/\.js$/.test(process.argv[1])?g().resolve(process.argv[1]):"dist/cli.js";e(`alias stepchain="node ${r}"     # or: npm link, once
`);for(const o of i.epilogue)e(`${o}
`);return n}l(aA,"runDemo");const lA={name:["demo"],usage:"",summary:"Record a sample agent run into a temporary project and show every capability on it (npm start).",description:"It touches nothing outside its temporary directory, and ends by printing commands to walk the run yourself.",options:{},examples:[{run:"stepchain demo",what:"the tour"}],exitCodes:{0:"done",1:"a step of the tour failed"},async run(e,t){return await aA(n=>process.stdout.write(n),t.env),0}},sf=l((e,t)=>ke(e)===ke(t),"same");function tl(e){return e instanceof Map?[...e]:Object.entries(e)}l(tl,"entriesOf");const nl=l(e=>G(e)||e instanceof Map,"changes_isObj");function rf(e,t,n,s,i){if(!sf(t,n)){if(s<4&&nl(t)&&nl(n)){const r=new Map(tl(t)),o=new Map(tl(n));for(const[a,c]of r){const u=`${e}.${a}`;o.has(a)?rf(u,c,o.get(a),s+1,i):i.push({path:u,kind:"removed",before:c})}for(const[a,c]of o)r.has(a)||i.push({path:`${e}.${a}`,kind:"added",after:c});return}i.push({path:e,kind:"changed",before:t,after:n})}}l(rf,"walk");function cA(e,t,n){const s=[];return rf(e,t,n,0,s),s}l(cA,"valueChanges");const of=["model","prompt","tool_call","tool_result","blob_refs","input_hash"];function dA(e,t){if(e===void 0)return[];const n=[];for(const s of of)n.push(...cA(s,e[s],t[s]));return n}l(dA,"stepChanges");function uA(e,t){return of.filter(n=>!sf(e[n],t[n]))}l(uA,"fieldsChanged");function hA(e){const t=e.tool_call;if(t===null)return"";if(typeof t=="string")return t;if(nl(t)){const n=new Map(tl(t)).get("name");if(typeof n=="string")return n}return rt(t)}l(hA,"toolName");function fA(e){const t=e.row;return{seq:t.seq,time:Id(t.ts),model:t.model===null?"":rt(t.model),tool:R(hA(t)),step_hash:t.step_hash,prompt:t.prompt===null?"":rt(t.prompt)}}l(fA,"stepSummary");const af=new WeakMap;function pA(e){let t=af.get(e);if(t===void 0){const n=e.row;t=[String(n.seq),rt(n.model),rt(n.prompt),rt(n.tool_call),rt(n.tool_result),n.step_hash,n.prev_hash,n.input_hash,...n.blob_refs].join(`
`).toLowerCase(),af.set(e,t)}return t}l(pA,"stepSearchText");function lf(e,t){return t.length>0&&pA(e).includes(t.toLowerCase())}l(lf,"stepMatches");function mA(e,t,n,s=1){const i=e.length;if(i===0||t.length===0)return-1;for(let r=1;r<=i;r++){const o=((n+s*r)%i+i)%i;if(lf(e.at(o),t))return o}return-1}l(mA,"findStep");function gA(e,t){const n=[];for(let s=0;s<e.length;s++)lf(e.at(s),t)&&n.push(s);return n}l(gA,"matchingSteps");const cf=160,df=new WeakMap;function yA(e,t,n){let s=df.get(e);s===void 0&&df.set(e,s=new Map);const i=`${t}:${n===t}`;let r=s.get(i);if(r===void 0){const o=e.blobs.get(t);if(r={digest:t,present:o!==void 0,size:o?.length??null,input:t===n,preview:null,binary:!1},o!==void 0){const a=o.subarray(0,cf*4);let c;try{c=le(a.length<o.length?bA(a):a)}catch{c=void 0}c===void 0||c.includes("\0")?r.binary=!0:r.preview=[...c].slice(0,cf).join("")}s.set(i,r)}return r}l(yA,"blobInfo");function bA(e){let t=e.length,n=0;for(;t>0&&n<4&&(e[t-1]&192)===128;)t--,n++;return t>0&&e[t-1]>=192&&t--,e.subarray(0,t)}l(bA,"trimUtf8");function sl(e,t){return t.row.blob_refs.map(n=>yA(e,n,t.row.input_hash))}l(sl,"stepBlobs");function wA(e){return e<1024?`${e} B`:e<1024*1024?`${(e/1024).toFixed(1)} KiB`:`${(e/1024/1024).toFixed(1)} MiB`}l(wA,"formatSize");const Ps=12;function uf(e,t=60){const n=l(i=>Pt(R(vn(i??null)),t),"v"),s=R(e.path);return e.kind==="added"?`+ ${s}: ${n(e.after)}`:e.kind==="removed"?`- ${s}: ${n(e.before)}`:`~ ${s}: ${n(e.before)} \u2192 ${n(e.after)}`}l(uf,"changeText");function hf(e,t,n){const s=e.entries.at(t);if(s===void 0)return{lines:[],truncated:!1};const i=s.row,r=Math.max(n.width,Ps+8),o=r-Ps,a=n.expanded?1/0:n.fieldLines??6,c=n.expanded?1/0:n.changeLines??8,u=n.wrapLines??!0,d=[];let h=!1;const f=l((m,b,_,k=!1)=>{u&&k&&b.some(A=>K(A)>o)&&(h=!0);const S=u?k?b.map(A=>Pt(A,o)):b.flatMap(A=>Dt(A,o)):b,v=S.length>a?S.slice(0,a):S;if(v.forEach((A,x)=>d.push({text:`${x===0?m.padEnd(Ps):" ".repeat(Ps)}${A}`,..._?{style:_}:{}})),S.length===0&&d.push({text:m}),v.length<S.length){h=!0;const A=S.length-v.length;d.push({text:`${" ".repeat(Ps)}\u2026 ${A} more line${A===1?"":"s"} (Enter expands)`,style:"marker"})}},"field");f("seq",[n.showFile?`${i.seq}  (line ${s.line} of ${R(e.file)})`:`${i.seq}  (line ${s.line})`]),f("time",[`${Id(i.ts)}  (ts ${i.ts})`]),f("model",Ei(i.model,o)),f("prompt",Ei(i.prompt,o)),f("tool_call",Ei(i.tool_call,o)),f("tool_result",Ei(i.tool_result,o));const y=sl(e,s);if(y.length===0?f("blobs",["(none)"],"dim"):f("blobs",y.map(m=>{const b=m.input?" input":"",_=R(m.digest.slice(0,16));if(!m.present)return`${_}\u2026${b}  MISSING`;const k=m.binary?"(binary)":JSON.stringify(m.preview??"").slice(1,-1);return`${_}\u2026${b}  ${wA(m.size??0)}  ${R(k)}`}),void 0,!n.expanded),f("input_hash",[R(i.input_hash)]),f("prev_hash",[R(i.prev_hash)]),f("step_hash",[R(i.step_hash)]),t>0){const m=dA(e.entries.at(t-1).row,i);if(d.push({text:""}),m.length===0)d.push({text:`no change in content since step ${t-1}`,style:"dim"});else{d.push({text:`changed since step ${t-1}:`,style:"label"});const b=m.slice(0,c);for(const _ of b){const k=uf(_,n.expanded?1/0:Math.max(12,Math.floor((r-6-K(R(_.path)))/2)));!n.expanded&&(k!==uf(_,1/0)||K(k)>r-2)&&(h=!0);const S=u&&n.expanded?Dt(`  ${k}`,r):[`  ${u?Pt(k,r-2):k}`];for(const v of S)d.push({text:v,style:"change"})}b.length<m.length&&(h=!0,d.push({text:`  \u2026 ${m.length-b.length} more changes (Enter expands)`,style:"marker"}))}}else d.push({text:""}),d.push({text:"first step (genesis: prev_hash is 64 zeros)",style:"dim"});return{lines:d,truncated:h}}l(hf,"stepBody");function iv(e,t){return e.some(n=>displayWidth(n.text)>t)}l(iv,"overflows");function ff(e,t){const n=e.entries.at(t);if(n===void 0)throw new w(`${e.file}: step ${t} is out of range (the journal has ${e.steps} step${e.steps===1?"":"s"}${e.steps>0?`, 0..${e.steps-1}`:""})`);return n}l(ff,"entryAt");class Ds extends N{static{l(this,"BrokenChainError")}file;faults;name="BrokenChainError";constructor(t,n,s="chain",i){super(`${t}: the ${s} does not verify (${n.length} fault${n.length===1?"":"s"}); refusing to display it`),this.file=t,this.faults=n,i!==void 0&&(this.details=i)}}function _A(e){const t=[...new Set(e.map(s=>g().resolve(s)))],n=t.map(s=>new nt(s,!1));return{where:t.join(", "),get(s){for(const i of n){const r=i.get(s);if(r!==void 0&&ae(r)===s)return r}}}}l(_A,"casBlobs");function AA(e,t){return{where:e,get(n){const s=t.get(n);return s!==void 0&&ae(s)===n?s:void 0}}}l(AA,"mapBlobs");function kA(e){return wh(e.map(t=>t.row)).length>0}l(kA,"isRedacted");function pf(e,t){return t.map(n=>({file:e,line:n.line,kind:n.kind,message:Nc(n)}))}l(pf,"errorFaults");function vA(e,t){if(!t.ok)throw new Ds(e,lo(e,t),"chain",pf(e,t.errors))}l(vA,"requireVerified");function EA(e,t){return{...t,head_hash:e.head_hash,steps:e.steps,entries:e.entries,redacted:kA(e.entries)}}l(EA,"sourceFromRead");function il(e,t){return e.includes("/")||e.includes(g().sep)||e.endsWith(".jsonl")||yr(e)?g().resolve(t,e):e}l(il,"targetPath");function SA(e,t={}){const n=t.cwd??process.cwd(),s=g().resolve(n,t.root??"."),{file:i,dir:r,agentId:o}=wn(il(e,n),s);let a;try{a=_n.open(i,t.onProgress===void 0?{}:{onProgress:t.onProgress})}catch(d){throw d instanceof uo?new Ds(i,lo(i,d.result),"chain",pf(i,d.result.errors)):d}const c=st(r),u=[c,s].filter(d=>d!==void 0).map(tt);return{kind:"journal",file:i,agentId:o,head_hash:a.head_hash,steps:a.length,entries:a,redacted:!1,blobs:_A(u),...c===void 0?{}:{projectRoot:c}}}l(SA,"openJournal");function Pn(e){return ye(le(e.bytes),{objects:"map"})}l(Pn,"storedRow");function mf(e,t={}){const n=t.cwd??process.cwd(),s=il(e,n);if(g().isAbsolute(s)&&yr(s)){const a=t.publicKeys??[],{verdict:c,receipt:u}=Ms(s,a.length>0?{publicKeys:a}:{}),d=c.errors.map(b=>({file:b.member===void 0?s:`${s}:${b.member}`,line:b.line??null,kind:b.kind,message:b.message}));if(u===void 0)throw new Ds(s,c.errors.map(b=>za(s,b)),"receipt",d);const h=u.journal,f=bn(h),y=jn(c,a.length),m=d.filter(b=>b.kind!=="no_trusted_key");return{file:s,kind:"receipt",verified:m.length===0,errors:m,signature:{status:y.status,holds:y.holds},head_hash:f.head_hash,steps:f.steps,entries:f.entries}}const i=g().resolve(n,t.root??"."),{file:r}=wn(s,i),o=oo(r);return{file:r,kind:"journal",verified:o.ok,errors:o.errors.map(a=>({file:r,line:a.line,kind:a.kind,message:a.message})),signature:null,head_hash:o.head_hash,steps:o.steps,entries:o.entries}}l(mf,"openForDiff");function $A(e,t){const n={left_steps:e.steps,right_steps:t.steps,left_head:e.head_hash,right_head:t.head_hash},s=Math.min(e.entries.length,t.entries.length);for(let i=0;i<s;i++){const r=e.entries.at(i),o=t.entries.at(i),a=uA(r.row,o.row),c=["prev_hash","step_hash"].filter(u=>r.row[u]!==o.row[u]);if(a.length>0||c.length>0)return{diverged:!0,reason:"step_mismatch",seq:i,fields_changed:a,hashes_changed:c,left:Pn(r),right:Pn(o),left_line:r.line,right_line:o.line,...n}}if(e.entries.length!==t.entries.length){const i=e.entries.at(s),r=t.entries.at(s);return{diverged:!0,reason:"length_mismatch",seq:s,fields_changed:[],hashes_changed:[],left:i===void 0?null:Pn(i),right:r===void 0?null:Pn(r),left_line:i?.line??null,right_line:r?.line??null,...n}}return{diverged:!1,reason:null,seq:null,fields_changed:[],hashes_changed:[],left:null,right:null,left_line:null,right_line:null,...n}}l($A,"diffJournals");function gf(e){return{file:e.file,kind:e.kind,verified:e.verified,signature:e.signature,head_hash:e.head_hash,steps:e.steps,errors:e.errors}}l(gf,"diffSideDocument");function yf(e){return e.verified&&(e.signature?.holds??!0)}l(yf,"sideHolds");const xA=yr;function IA(e,t={}){const n=t.publicKeys??[],{verdict:s,receipt:i}=Ms(e,n.length>0?{publicKeys:n}:{}),r=s.errors.filter(a=>!(a.kind==="no_trusted_key"&&n.length===0));if(r.length>0)throw new Ds(e,r.map(a=>za(e,a)),"receipt",r.map(a=>({file:a.member===void 0?e:`${e}:${a.member}`,line:a.line??null,kind:a.kind,message:a.message})));if(i===void 0)throw new N(`${e}: the receipt verified but its parts could not be read`);const o=bn(i.journal);return vA(`${e}:journal/000000.jsonl`,o),{...EA(o,{kind:"receipt",file:e,agentId:i.manifest.agent_id,blobs:AA(`${g().basename(e)}:blobs/`,i.blobs)}),signed:s.signed,signatureChecked:s.signature_ok===!0}}l(IA,"openReceipt");function CA(e,t={}){const n=t.cwd??process.cwd(),s=il(e,n);return g().isAbsolute(s)&&xA(s)?IA(s,t.publicKeys?{publicKeys:t.publicKeys}:{}):SA(e,{cwd:n,...t.root===void 0?{}:{root:t.root},...t.onProgress===void 0?{}:{onProgress:t.onProgress}})}l(CA,"openReplay");function bf(e=0,t={}){return{index:e,expanded:!1,scroll:0,mode:"normal",input:"",query:"",message:"",panel:null,limit:t.limit??null,canFork:t.canFork??!0}}l(bf,"initialState");function Hs(e,t){return t.limit===null?e.steps:Math.min(e.steps,Math.max(1,t.limit))}l(Hs,"walkedSteps");function BA(e){const t=[];let n=0;for(;n<e.length;){const s=e[n];if(s==="\x1B"){const i=e.slice(n),r=/^\x1b(?:\[|O)([0-9;]*)([A-Za-z~])/.exec(i);if(r){const o=r[2]==="~"?`${r[1]}~`:r[2],c={A:"up",B:"down",C:"right",D:"left",H:"home",F:"end","5~":"pgup","6~":"pgdn","1~":"home","4~":"end","7~":"home","8~":"end"}[o];c!==void 0&&t.push({kind:c}),n+=r[0].length;continue}t.push({kind:"escape"}),n++;continue}if(s==="\r"||s===`
`)t.push({kind:"enter"});else if(s==="\x7F"||s==="\b")t.push({kind:"backspace"});else if(s===""||s==="")t.push({kind:"interrupt"});else if(s>=" "){const i=e.codePointAt(n),r=String.fromCodePoint(i);t.push({kind:"char",char:r}),n+=r.length;continue}n++}return t}l(BA,"parseKeys");const wf=18;function OA(e){return["Keys (any key returns to the step)","",...[["n  \u2192  l","next step"],["p  \u2190  h","previous step"],["g  Home","first step"],["G  End","last step"],["digits \u23CE","jump to that seq (Esc cancels)"],["/text \u23CE","search every field and hash (case-insensitive, wraps around)"],["/ \u23CE","the same search again, forward"],["N","the same search, backward"],["\u23CE","expand: every field in full (again: collapse)"],["\u2191 \u2193  j k","scroll one line"],["PgUp PgDn Space","scroll one page"],...e?[["f","fork the run at this step into a new git worktree and branch (asks first)"]]:[],["?","this list"],["q  Ctrl-C","quit"]].map(([n,s])=>({text:`  ${n.padEnd(wf-3)} ${s}`,indent:wf}))]}l(OA,"keyList");const RA=[["n/\u2192 next",1],["p/\u2190 prev",1],["g/G first/last",3],["seq\u23CE jump",4],["/ search",2],["\u23CE expand",5],["\u2191\u2193 scroll",7],["f fork",6],["? keys",1],["q quit",0]];function TA(e,t=!0){const n=new Set;let s=0;const i=RA.filter(([r])=>t||r!=="f fork");for(const[r]of[...i].sort((o,a)=>o[1]-a[1])){const o=K(r)+(n.size>0?2:0);s+o>e||(n.add(r),s+=o)}return i.filter(([r])=>n.has(r)).map(([r])=>r).join("  ")}l(TA,"keyHints");let _f;function Af(e,t,n,s){const i=_f;if(i&&i.source===e&&i.index===t&&i.width===n&&i.expanded===s)return i.body;const r=hf(e,t,{width:n,expanded:s});return _f={source:e,index:t,width:n,expanded:s,body:r},r}l(Af,"bodyOf");function Qs(e){return Math.max(1,e.height-3)}l(Qs,"bodyHeight");function Nt(e,t,n=""){return{...e,index:t,scroll:0,expanded:t===e.index?e.expanded:!1,message:n}}l(Nt,"screen_go");function kf(e,t,n,s){if(n.length===0)return{...e,mode:"normal",input:"",message:"no search yet: press / and type some text"};const i=Hs(t,e),r=i===t.entries.length?t.entries:t.entries.slice(0,i),o=mA(r,n,e.index,s);if(o<0)return{...e,mode:"normal",input:"",query:n,message:`no step matches "${R(n)}"`};const a=gA(r,n),c=s===1?o<=e.index:o>=e.index,u=`"${R(n)}": match ${a.indexOf(o)+1} of ${a.length} (seq ${o})${c&&a.length>1?", wrapped":""}  / \u23CE next, N previous`;return{...Nt({...e,mode:"normal",input:"",query:n},o),message:u}}l(kf,"search");function rl(e,t,n,s){const i=Hs(n,e)-1;if(t.kind==="interrupt")return{state:e,action:"quit"};if(e.panel!==null)return{state:{...e,panel:null,message:""}};if(e.mode==="confirm-fork")return t.kind==="char"&&(t.char==="y"||t.char==="Y")?{state:{...e,mode:"normal",message:`forking from step ${e.index}\u2026`},action:"fork"}:{state:{...e,mode:"normal",message:"fork cancelled: nothing was created"}};if(e.mode==="jump"||e.mode==="search"){if(t.kind==="escape")return{state:{...e,mode:"normal",input:"",message:""}};if(t.kind==="backspace"){const u=[...e.input].slice(0,-1).join("");return{state:u.length===0&&e.mode==="jump"?{...e,mode:"normal",input:u}:{...e,input:u}}}if(t.kind==="enter"){if(e.mode==="search")return{state:kf(e,n,e.input||e.query,1)};const u=Number(e.input),d={...e,mode:"normal",input:""};return!Number.isSafeInteger(u)||u>i?{state:{...d,message:`no step ${e.input}: seqs are 0..${i}${i+1<n.steps?` (--limit ${i+1})`:""}`}}:{state:Nt(d,u)}}return t.kind==="char"?e.mode==="jump"?/^[0-9]$/.test(t.char)?{state:e.input.length<15?{...e,input:e.input+t.char}:e}:{state:{...e,mode:"normal",input:"",message:"jump cancelled: type digits, then Enter"}}:{state:{...e,input:e.input+t.char}}:{state:e}}const r=Af(n,e.index,Math.max(1,s.width),e.expanded).lines.length,o=Math.max(0,r-Qs(s)),a=l(u=>({...e,scroll:Math.min(o,Math.max(0,e.scroll+u)),message:""}),"scrollBy");switch(t.kind){case"right":return{state:e.index<i?Nt(e,e.index+1):{...e,message:`this is the last step${i+1<n.steps?` walked (--limit ${i+1} of ${n.steps})`:""}`}};case"left":return{state:e.index>0?Nt(e,e.index-1):{...e,message:"this is the first step"}};case"home":return{state:Nt(e,0)};case"end":return{state:Nt(e,i)};case"up":return{state:a(-1)};case"down":return{state:a(1)};case"pgup":return{state:a(-Qs(s))};case"pgdn":return{state:a(Qs(s))};case"enter":return{state:{...e,expanded:!e.expanded,scroll:0,message:e.expanded?"collapsed":"expanded: every field in full (\u23CE collapses, \u2191\u2193 scroll)"}};case"escape":case"backspace":return{state:{...e,message:""}};case"char":break}const c=t.char;return c==="n"||c==="l"?rl(e,{kind:"right"},n,s):c==="p"||c==="h"?rl(e,{kind:"left"},n,s):c==="g"?{state:Nt(e,0)}:c==="G"?{state:Nt(e,i)}:c==="j"?{state:a(1)}:c==="k"?{state:a(-1)}:c===" "?{state:a(Qs(s))}:/^[0-9]$/.test(c)?{state:{...e,mode:"jump",input:c,message:""}}:c==="/"?{state:{...e,mode:"search",input:"",message:""}}:c==="N"?{state:kf(e,n,e.query,-1)}:c==="q"||c==="Q"?{state:e,action:"quit"}:c==="f"?e.canFork?{state:{...e,mode:"confirm-fork",message:""}}:{state:{...e,message:`a receipt cannot be forked: fork the journal it came from (stepchain fork <agent> --from-step ${e.index})`}}:c==="?"?{state:{...e,panel:OA(e.canFork),message:""}}:{state:{...e,message:`unknown key ${JSON.stringify(c)} (? lists the keys)`}}}l(rl,"reduce");function Us(e){if(e.kind==="receipt")return jn({signed:e.signed===!0,signature_ok:e.signatureChecked===!0,key_id:null},e.signatureChecked===!0?1:0)}l(Us,"sourceSignature");function NA(e){const t=Us(e);return t===void 0?"":t.status==="unsigned"?", unsigned":t.status==="verified"?", signature \u2713":`, ${t.text}`}l(NA,"signatureText");function jA(e,t,n=1/0){const s=Hs(e,t),i=Us(e),r=[[`step ${t.index+1} / ${s}${s<e.steps?` (of ${e.steps}, --limit)`:""}`,0],[`seq ${t.index}`,5],[`head ${Cd(e.head_hash)}`,2],["chain \u2713 verified",0],[R(e.agentId),3]];e.kind==="receipt"&&(r.push([e.redacted?"published receipt (redacted)":"receipt",4]),i!==void 0&&r.push([i.status==="verified"?"signature \u2713":i.status==="unsigned"?"unsigned":"signature NOT checked",i.warn?0:1]));const o=l(c=>c.map(([u])=>u).join("  "),"join");let a=r;for(let c=5;c>=1&&K(o(a))>n;c--)a=a.filter(([,u])=>u<c);return o(a)}l(jA,"headerText");function FA(e,t){if(t-e.indent<16)return Dt(e.text,t);const n=Dt(e.text,t)[0]??"",s=e.text.slice(n.length).trimStart();return s===""?[n]:[n,...Dt(s,t-e.indent).map(i=>" ".repeat(e.indent)+i)]}l(FA,"wrapHanging");function MA(e,t,n,s){if(t.panel!==null)return{rows:t.panel.flatMap(h=>typeof h=="string"?Dt(h,n):FA(h,n)).slice(0,s).map((h,f)=>({text:h,...f===0?{style:"label"}:{}})),label:"\u2500\u2500"};const{lines:i,truncated:r}=Af(e,t.index,n,t.expanded),o=Math.min(t.scroll,Math.max(0,i.length-s)),a=i.slice(o,o+s),c=i.length>s?` lines ${o+1}-${o+a.length} of ${i.length} (\u2191\u2193 scroll) `:"",u=r&&!t.expanded?" \u23CE expands ":"";return{rows:a.map(d=>({text:d.text,...d.style?{style:d.style}:{}})),label:`\u2500\u2500${c}${u}`}}l(MA,"bodyArea");function LA(e,t){const n=[`fork the run at step ${e} into a new git worktree and branch? y/N`,`fork the run at step ${e} into a new git worktree? y/N`,`fork at step ${e}? y/N`];return n.find(s=>K(s)<=t)??n.at(-1)}l(LA,"forkQuestion");function PA(e,t,n){const s=Math.max(1,n.width),i=Math.max(1,n.height),r=Us(e)?.warn===!0,o=[{text:me(jA(e,t,s),s),style:r?"header-warn":"header"}];if(i===1)return o;const a=Qs({width:s,height:i}),{rows:c,label:u}=MA(e,t,s,a),d=xd(u,s);if(o.push({text:d+"\u2500".repeat(Math.max(0,s-K(d))),style:"rule"}),i===2)return o;for(let f=0;f<a&&o.length<i-1;f++){const y=c[f];o.push(y===void 0?{text:" ".repeat(s)}:{text:me(y.text,s),...y.style?{style:y.style}:{}})}let h;return t.mode==="jump"?h={text:me(`jump to seq (0..${Hs(e,t)-1}): ${t.input}\u258F \u23CE go, Esc cancel`,s),style:"prompt"}:t.mode==="search"?h={text:me(`/${R(t.input)}\u258F \u23CE search${t.query?` (empty: "${R(t.query)}" again)`:""}, Esc cancel`,s),style:"prompt"}:t.mode==="confirm-fork"?h={text:me(LA(t.index,s),s),style:"prompt"}:t.panel!==null?h={text:me("any key returns to the step",s),style:"footer"}:h={text:me(R(t.message)||TA(s,t.canFork),s),style:"footer"},o.push(h),o}l(PA,"renderScreen");const DA={header:"\x1B[7m","header-warn":"\x1B[7;33m",rule:"\x1B[2m",label:"\x1B[1m",dim:"\x1B[2m",marker:"\x1B[2;3m",change:"\x1B[36m",warn:"\x1B[31m",prompt:"\x1B[1m"};function HA(e){let t="";return e.forEach((n,s)=>{const i=n.style?DA[n.style]??"":"";t+=`\x1B[${s+1};1H\x1B[2K${i}${R(n.text)}${i?"\x1B[0m":""}`}),t}l(HA,"paint");function QA(e,t={}){const n=t.input??process.stdin,s=t.output??process.stdout,i={canFork:t.fork!==void 0,...t.limit===void 0?{}:{limit:t.limit}},r=Hs(e,bf(0,i));let o=bf(Math.min(Math.max(0,t.start??0),Math.max(0,r-1)),i);const a=l(()=>({width:s.columns||80,height:s.rows||24}),"size");let c=!1,u=!1;return new Promise(d=>{const h=l(()=>{s.write(HA(PA(e,o,a())))},"render"),f=l(()=>{u||(u=!0,n.off("data",_),s.off("resize",h),process.off("SIGWINCH",h),process.off("SIGINT",y),process.off("SIGTERM",y),process.off("exit",f),n.isTTY&&n.setRawMode(!1),n.pause(),s.write("\x1B[0m\x1B[?25h\x1B[?1049l"))},"restore"),y=l(k=>{f(),process.exit(k==="SIGINT"?130:143)},"onSignal"),m=l(()=>{f(),d()},"quit"),b=l(async()=>{if(!t.fork){o={...o,message:"fork is not available here"};return}c=!0,h();try{const k=await t.fork(o.index);o={...o,message:"",panel:typeof k=="string"?[k]:k}}catch(k){o={...o,message:"",panel:["fork failed","",...k.message.split(`
`)]}}finally{c=!1}},"doFork");function _(k){if(!c){for(const S of BA(typeof k=="string"?k:k.toString("utf8"))){const v=rl(o,S,e,a());if(o=v.state,v.action==="quit")return m();if(v.action==="fork"){b().then(h);return}}h()}}l(_,"onData"),process.on("SIGINT",y),process.on("SIGTERM",y),process.on("exit",f),process.on("SIGWINCH",h),s.on("resize",h),s.write("\x1B[?1049h\x1B[?25l"),n.isTTY&&n.setRawMode(!0),n.setEncoding("utf8"),n.on("data",_),n.resume(),h()})}l(QA,"runInteractive");function vf(e){const t=e.kind==="receipt"?`receipt ${e.file}`:e.file,n=e.kind==="receipt"?`${e.redacted?", published: redacted":""}${NA(e)}`:"";return`${R(e.agentId)}: ${e.steps} step${e.steps===1?"":"s"}, head ${e.head_hash}, chain verified (${R(t)}${n})`}l(vf,"statusLine");function UA(e,t){const n=e.entries.slice(0,t??e.entries.length).map(fA),s=l((u,d)=>n.reduce((h,f)=>Math.max(h,d(f)),u),"widest"),i=s(3,u=>String(u.seq).length),r=Math.min(28,s(5,u=>K(u.model))),o=Math.min(16,s(4,u=>K(u.tool))),a=`${"seq".padStart(i)}  ${me("time (UTC)",20)}  ${me("model",r)}  ${me("tool",o)}  ${me("step",12)}  prompt`,c=[vf(e),"",a];for(const u of n)c.push(`${String(u.seq).padStart(i)}  ${me(u.time.slice(0,19).replace("T"," "),20)}  ${me(u.model,r)}  ${me(u.tool,o)}  ${Cd(u.step_hash)}  ${Pt(u.prompt,60)}`);return n.length<e.steps&&c.push(`\u2026 ${e.steps-n.length} more step${e.steps-n.length===1?"":"s"} (--limit ${n.length})`),c}l(UA,"stepTable");function Ef(e){const t=Us(e);return t===void 0?null:{status:t.status,holds:t.holds}}l(Ef,"signatureDocument");function GA(e,t){const n=Ef(e);return{ok:n?.holds??!0,agent_id:e.agentId,head_hash:e.head_hash,steps:e.steps,signature:n,entries:e.entries.slice(0,t??e.entries.length).map(Pn)}}l(GA,"replayDocument");function WA(e,t){const n=ff(e,t),s=[vf(e),"",`seq ${n.row.seq} (step ${n.row.seq+1} of ${e.steps})`];for(const r of hf(e,t,{width:100,expanded:!0,wrapLines:!1,showFile:!0}).lines)s.push(r.text);const i=sl(e,n);if(i.length>0){s.push("",`blobs (from ${R(e.blobs.where)}):`);for(const r of i)if(s.push(`  ${r.digest}${r.input?"  (input)":""}`),!r.present)s.push("    MISSING: not in the store");else if(s.push(`    ${r.size} bytes${r.binary?", binary":""}`),r.preview!==null)for(const o of r.preview.replace(/\n$/,"").split(`
`).slice(0,6))s.push(`    | ${R(o)}`)}return s}l(WA,"showLines");function zA(e,t){const n=ff(e,t),s=Ef(e);return{ok:s?.holds??!0,agent_id:e.agentId,head_hash:e.head_hash,steps:e.steps,signature:s,seq:n.row.seq,line:n.line,entry:Pn(n),blobs:sl(e,n)}}l(zA,"showDocument");function Sf(e,t,n){const s=`${t.padEnd(5)} ${R(n)}`,i={verified:"signature verified",not_checked:"signature NOT checked",invalid:"signature INVALID",unsigned:"unsigned",unsigned_but_required:"unsigned, but a signature was required"},r=e.signature===null?"":`, ${i[e.signature.status]??e.signature.status.replace(/_/g," ")}`;if(e.verified)return[`${s}: chain verified, ${e.steps} step${e.steps===1?"":"s"}, head ${e.head_hash}${r}`];const o=[`${s}: chain does NOT verify (${e.errors.length} fault${e.errors.length===1?"":"s"}), ${e.steps} well-formed row${e.steps===1?"":"s"}${r}`],a=e.errors.slice(0,10);for(const c of a)o.push(`  ${R(c.line===null?c.file??"":`${c.file??""}:${c.line}`)}: ${c.kind}: ${R(c.message)}`);return e.errors.length>a.length&&o.push(`  \u2026 and ${e.errors.length-a.length} more`),o}l(Sf,"diffSideLines");function qA(e,t,n,s){const i=R(t),r=R(n),o=s===void 0?[]:[...Sf(s.left,"left",t),...Sf(s.right,"right",n)];if(!e.diverged)return[...o,`same: ${i} and ${r} have the same ${e.left_steps} steps (head ${e.left_head})`];if(e.reason==="length_mismatch"){const h=e.left_steps>e.right_steps?i:r;return[...o,`diverged at step ${e.seq}: length_mismatch (${i} has ${e.left_steps} steps, ${r} has ${e.right_steps})`,`  the first ${e.seq} steps are the same; ${h} goes on`]}const a=[...e.fields_changed,...e.hashes_changed.filter(()=>e.fields_changed.length===0)],c=[...o,`diverged at step ${e.seq}: ${a.join(", ")} ${a.length>1?"differ":"differs"}`+(e.left_line!==e.right_line?` (line ${e.left_line} of ${i}, line ${e.right_line} of ${r})`:` (line ${e.left_line})`)],u=l((h,f)=>h instanceof Map?h.get(f)??null:null,"get");for(const h of a)c.push(`  ${h}:`),c.push(`    - ${Pt(rt(u(e.left,h)),200)}`),c.push(`    + ${Pt(rt(u(e.right,h)),200)}`);const d=l((h,f)=>h?.errors.find(m=>m.line===f&&m.kind==="step_hash_mismatch")===void 0?"":" (stored: does not match the fields, step_hash_mismatch)","faultAt");return c.push(`  left  ${i}: step_hash ${String(u(e.left,"step_hash"))}${d(s?.left,e.left_line)}`),c.push(`  right ${r}: step_hash ${String(u(e.right,"step_hash"))}${d(s?.right,e.right_line)}`),c}l(qA,"diffLines");const JA={name:["diff"],usage:"<a> <b> [--root DIR] [--json] [--public-key FILE]...",summary:"The first divergence between two runs (each an agent, dir, file or receipt): the step and the fields that differ, or a length mismatch, with each side verified. Exit 0 same and both verified, 1 otherwise.",description:"A side that does not verify is compared all the same (what was edited in a tampered copy is the question), with its faults printed beside it. Steps are compared by their hashed fields and stored hashes, never by time.",options:{...Z,...J,"public-key":kn},examples:[{run:"stepchain diff agent-1 fork-try-again-20261202-090414-f5aeff",what:"where a fork went another way"},{run:"stepchain diff original.jsonl suspicious.jsonl",what:"what was edited in a copy"}],exitCodes:{0:"the same steps, both sides verified",1:"diverged, or a side does not verify (or its signature was not checked)",2:"usage or input error"},run(e,t){const[n,s]=q(e,["a","b"],"diff"),i=(e.lists.get("public-key")??[]).map(d=>ds(g().resolve(t.cwd,d))),r={root:ne(e,t),cwd:t.cwd,...i.length>0?{publicKeys:i}:{}},o=mf(n,r),a=mf(s,r),c=$A(o,a),u=!c.diverged&&yf(o)&&yf(a);if(e.flags.has("json"))t.json({ok:u,...c,left_status:gf(o),right_status:gf(a)});else for(const d of qA(c,n,s,{left:o,right:a}))t.out(d);return u?0:1}},$f={...Z,...J,...Lg,output:{kind:"value",short:"o",value:"RECEIPT",description:"The receipt to write (required; a .gz or .tgz name is gzipped). An existing file needs --force."},"agent-id":{kind:"value",value:"ID",description:"The agent id in the manifest (default: the journal's directory name)."},"sign-key":{kind:"value",value:"FILE",description:"Sign the manifest with this Ed25519 private key (PEM PKCS#8 or a raw 32-byte seed)."}};function xf(e,t,n){const[s]=q(e,["agent|dir|file"],n),i=e.values.get("output");if(i===void 0)throw new w(`${n}: missing -o RECEIPT`);const r=ne(e,t),o=wn(s,r),a=g().resolve(t.cwd,i);if(a===g().resolve(o.file))throw new w(`${n}: the output would overwrite the journal`);Pg(a,i,e,n);const c={agentId:ce(e.values.get("agent-id")??o.agentId,"agent id"),audit:{root:st(o.dir)??r,env:t.env}},u=e.values.get("sign-key");return u!==void 0&&(c.signKey=ny(g().resolve(t.cwd,u))),{journal:o,out:i,outFile:a,options:c}}l(xf,"receiptWriteTarget");const KA={name:["export"],usage:"<agent|dir|file> -o RECEIPT [--force] [--root DIR] [--agent-id ID] [--sign-key FILE] [--cas DIR] [--json]",summary:"Verify a journal, then write a portable receipt (tar; .gz/.tgz names are gzipped): manifest, optional Ed25519 signature, chain, blobs.",description:"The journal must verify first. Blobs come from the journal's project CAS (or --cas); a blob missing there is named in the output and left out. Verify the receipt anywhere with `stepchain receipt verify`.",options:{...$f,cas:{kind:"value",value:"DIR",description:"Read blobs from this CAS directory instead of the project's."}},examples:[{run:"stepchain export agent-1 -o run.receipt.tar --sign-key stepchain.key",what:"a signed receipt"},{run:"stepchain export agent-1 -o run.receipt.tar --force",what:"replace an earlier receipt"}],exitCodes:{0:"written",1:"the journal does not verify (nothing written)",2:"usage or input error (the output exists without --force, a bad key)"},run(e,t){const{journal:n,out:s,outFile:i,options:r}=xf(e,t,"export"),o={...r},a=e.values.get("cas");a!==void 0&&(o.cas=new nt(g().resolve(t.cwd,a),!1));const c=Nw(n.file,i,o);for(const u of c.warnings)t.err(`stepchain: warning: ${u}`);return e.flags.has("json")?(t.json({ok:!0,receipt:i,agent_id:c.manifest.agent_id,head_hash:c.manifest.head_hash,steps:c.manifest.steps,signed:c.signed,key_id:c.key_id,blobs:c.blobs}),0):(t.out(`exported ${c.manifest.steps} step${c.manifest.steps===1?"":"s"} of ${c.manifest.agent_id} to ${s}`),t.out(`  head_hash ${c.manifest.head_hash}`),t.out(`  signed    ${c.signed?`yes (key id ${c.key_id})`:"no"}`),t.out(`  blobs     ${c.blobs.bundled.length} bundled, ${c.blobs.missing.length} missing from the CAS`),0)}};function If(e){try{const t=JSON.parse(e);return typeof t=="object"&&t!==null&&!Array.isArray(t)?t:void 0}catch{return}}l(If,"parseEntry");function Cf(e){const t=e.message;if(typeof t!="object"||t===null)return[];const n=t.content;return Array.isArray(n)?n.filter(s=>typeof s=="object"&&s!==null):[]}l(Cf,"blocks");function ol(e){return e.type!=="user"?[]:Cf(e).filter(t=>t.type==="tool_result"&&typeof t.tool_use_id=="string").map(t=>t.tool_use_id)}l(ol,"toolResultIds");function Bf(e){if(e.type!=="assistant")return;const t=e.message,n=typeof t=="object"&&t!==null?t.id:void 0;return typeof n=="string"?n:void 0}l(Bf,"messageIdOf");function YA(e){return e.type!=="assistant"?[]:Cf(e).filter(t=>t.type==="tool_use"&&typeof t.id=="string").map(t=>t.id)}l(YA,"toolUseIds");function VA(e,t,n,s,i,r=[]){const o=l(($,C)=>{throw new N(`${t}${C===void 0?"":`:${C}`}: ${$}; the conversation is not forked`)},"refuse");let a="";try{a=le(e)}catch{o("not valid UTF-8")}const c=a.split(`
`),u=[],d=new Map;let h=-1;const f=JSON.stringify(s);for(let $=0;$<c.length;$++){const C=c[$];if(h>=0){if(!C.includes(f))continue;const T=If(C);T!==void 0&&T.isSidechain!==!0&&ol(T).includes(s)&&o(`the result of tool call ${s} appears twice (lines ${h+1} and ${$+1})`,$+1);continue}if(C===""){if($===c.length-1)break;o("an empty line",$+1)}const I=If(C);I===void 0&&o("not a JSON object (Claude Code transcripts have one per line)",$+1);const O=I.sessionId;O!==void 0&&O!==n&&o(`belongs to session ${JSON.stringify(O)}, not ${n}`,$+1),u.push(I),typeof I.uuid=="string"&&d.set(I.uuid,$),ol(I).includes(s)&&(I.isSidechain===!0&&o(`the result of tool call ${s} is in a sidechain (a subagent's conversation)`,$+1),typeof I.uuid!="string"&&o("the tool result entry has no uuid",$+1),h=$)}h<0&&o(`no result of tool call ${s} in this transcript (Claude Code writes it asynchronously: if the session is still running, try again once it has moved on)`);const y=[],m=new Set;for(let $=h;$!==void 0;){const C=u[$],I=C.uuid;I!==void 0&&(m.has(I)&&o(`the conversation chain loops at ${I}`,$+1),m.add(I)),y.push($);const O=C.parentUuid;if(O==null)break;typeof O!="string"&&o("a parentUuid is not a string",$+1);const T=d.get(O);(T===void 0||T>=$)&&o(`the conversation chain is broken: parent ${String(O)} is not an earlier line`,$+1),$=T}const b=new Set;for(const $ of y){const C=Bf(u[$]);C!==void 0&&b.add(C)}const _=new Set,k=[];for(let $=0;$<=h;$++){const C=u[$];if(C.isSidechain===!0)continue;for(const O of ol(C))_.add(O);const I=Bf(C);if(y.includes($)||I!==void 0&&b.has(I))for(const O of YA(C))k.push({id:O,line:$+1})}const S=k.find($=>!_.has($.id));S!==void 0&&o(`tool call ${S.id} (line ${S.line}) has no result before the cut: it ran in parallel with ${s}, and a conversation cut between their results cannot be continued`,S.line);for(const $ of r)_.has($)&&o(`the conversation before the cut already holds the result of ${$}, which the journal records after ${s} (parallel tool calls whose hooks ran in another order); fork at the later step instead`);const v=`"sessionId":${JSON.stringify(n)}`,A=`"sessionId":${JSON.stringify(i)}`,x=[];for(let $=0;$<=h;$++){const C=c[$];if(u[$].sessionId===void 0){x.push(C);continue}C.includes(v)||o("cannot rewrite its sessionId (not written the way Claude Code writes it)",$+1),x.push(C.split(v).join(A))}const E=u.find($=>typeof $.cwd=="string")?.cwd,B=u[h].cwd;return{bytes:Buffer.from(`${x.join(`
`)}
`,"utf8"),line:h+1,firstCwd:E,cutCwd:typeof B=="string"?B:void 0}}l(VA,"cutTranscript");function al(e){return`claude-${e}`}l(al,"claudeAgentId");function Dn(e,t){const n=e[t];return typeof n=="string"?n:void 0}l(Dn,"payload_str");function Of(e,t){return Dn(e.raw,t)}l(Of,"field");function $e(e,t){return Object.prototype.hasOwnProperty.call(e.raw,t)?e.raw[t]:void 0}l($e,"value");function Rf(e,t="<stdin>"){if(e.length===0)throw new w(`${t}: no hook payload (empty input)`);let n;try{n=Yn(e)}catch(c){const u=c instanceof Ie?c.message:"too large or too deeply nested";throw new w(`${t}: hook payload is not JSON: ${u}`)}if(!G(n))throw new w(`${t}: hook payload is not a JSON object`);const s=Dn(n,"hook_event_name");if(s===void 0||s==="")throw new w(`${t}: hook payload has no hook_event_name`);const i=Dn(n,"session_id");if(i===void 0||i==="")throw new w(`${t}: hook payload has no session_id`);if(!be(al(i))||i.startsWith(".")||i.includes(".."))throw new w(`${t}: unsafe session_id ${JSON.stringify(i)}`);const r=Dn(n,"cwd");if(r===void 0||!g().isAbsolute(r)||r.includes("\0"))throw new w(`${t}: hook payload has no absolute cwd`);const o=Dn(n,"transcript_path");if(o!==void 0&&(!g().isAbsolute(o)||o.includes("\0")))throw new w(`${t}: transcript_path is not an absolute path`);const a=Dn(n,"prompt_id");return{event:s,sessionId:i,transcriptPath:o,cwd:g().resolve(r),promptId:a===""?void 0:a,raw:n,bytes:e}}l(Rf,"parseHookPayload");const Tf="claude";function XA(e){const t={};for(const[n,s]of Object.entries(e))n==="type"||n==="subtype"||n==="session_id"||n==="uuid"||n==="parent_tool_use_id"||Object.defineProperty(t,n,{value:s,enumerable:!0,writable:!0,configurable:!0});return t}l(XA,"envelopeFree");function ZA(e,t){const n=[];if(e.type==="system"&&typeof e.subtype=="string"&&e.subtype.endsWith("_boundary")){const s=Object.entries(e).find(([i,r])=>i.endsWith("_metadata")&&G(r));n.push({kind:e.subtype,detail:s!==void 0?s[1]:XA(e),line:t})}if(e.type==="assistant"&&G(e.message)){const s=e.message.context_management??e.context_management,i=G(s)?s.applied_edits:void 0;if(Array.isArray(i))for(const r of i)G(r)&&n.push({kind:typeof r.type=="string"&&r.type!==""?r.type:"context_edit",detail:r,line:t})}return n}l(ZA,"signalsOf");function ek(e,t){let n;try{n=le(e)}catch{throw new w(`${t}: transcript is not valid UTF-8`)}const s=n.split(`
`),i={events:0,assistantTurns:0,sessionId:void 0,signals:[]};for(let r=0;r<s.length;r++){const o=s[r].replace(/\r$/,"");if(o.trim()==="")continue;let a;try{a=ye(o)}catch(c){const u=c instanceof Ie?c.message:"too large or too deeply nested";throw new w(`${t}:${r+1}: not a stream-json event: ${u}`)}if(!G(a))throw new w(`${t}:${r+1}: not a stream-json event: not a JSON object`);if(typeof a.type!="string")throw new w(`${t}:${r+1}: not a stream-json event: no string "type"`);i.events++,a.type==="assistant"&&i.assistantTurns++,i.sessionId===void 0&&typeof a.session_id=="string"&&(i.sessionId=a.session_id),i.signals.push(...ZA(a,r+1))}if(i.events===0)throw new w(`${t}: transcript has no events`);return i}l(ek,"readClaudeStream");function ll(e,t){const n=new Set([...e.row.payload.keys(),...t.row.payload.keys()]),s=l(i=>i===void 0?void 0:ke(i),"enc");return[...n].filter(i=>s(e.row.payload.get(i))!==s(t.row.payload.get(i))).sort()}l(ll,"payloadDiff");function Nf(e){if(e===void 0)return"absent";const t=ke(e);return t.length>80?`${t.slice(0,79)}\u2026`:t}l(Nf,"shown");function jf(e){if(e===void 0||e.row.event!==Xe)return;const t=e.row.payload.get("mutation_kind");return typeof t=="string"&&t!==""?t:"unknown"}l(jf,"mutationKind");function Ff(e){const t=e?.row.payload.get("step_index");return t===void 0?"":` at step ${String(t)}`}l(Ff,"stepOf");function Mf(e){const t=Hh(e);if(!t.chain_ok){const n=t.errors[0],s=new N(`${e}:${n.line}: ${n.kind}: ${n.message}; cannot diff a run journal whose chain does not verify`);throw s.details=t.errors.map(i=>({file:e,line:i.line,kind:i.kind,message:i.message})),s}return t.entries}l(Mf,"load");function tk(e,t){const n=Mf(e),s=Mf(t),i=Math.min(n.length,s.length),r=l((a,c,u)=>{const d=jf(n[a]),h=jf(s[a]),f=d??h;if(d!==void 0&&h!==void 0){const m=ll(n[a],s[a]),b=m.slice(0,4).map(_=>`${_} (${Nf(n[a].row.payload.get(_))} in run A, ${Nf(s[a].row.payload.get(_))} in run B)`).join(", ");return{diverged:!0,index:a,reason:`row ${a}: provider-side context mutation ${d===h?d:`${d} vs ${h}`} in both runs${Ff(n[a])}, but ${m.length===1?`only ${b} differs`:`${b}${m.length>4?", ...":""} differ`}`,reason_code:"provider_state_mutation",mutation_kind:d,fields_changed:m}}if(f!==void 0){const m=d!==void 0?"run A":"run B";return{diverged:!0,index:a,reason:`row ${a}: provider-side context mutation ${f}${Ff(d!==void 0?n[a]:s[a])} in ${m} has no counterpart in ${m==="run A"?"run B":"run A"}`,reason_code:"provider_state_mutation",mutation_kind:f,fields_changed:[]}}const y=a<i&&n[a].row.event===s[a].row.event?ll(n[a],s[a]):[];return{diverged:!0,index:a,reason:u,reason_code:c,mutation_kind:null,fields_changed:y}},"attribute");for(let a=0;a<i;a++){const c=n[a].row,u=s[a].row;if(c.event!==u.event||c.payload_hash!==u.payload_hash){const d=c.event===u.event?ll(n[a],s[a]):[],h=c.event!==u.event?`event ${JSON.stringify(c.event)} vs ${JSON.stringify(u.event)}`:`${c.event} payloads differ in ${d.join(", ")}`;return r(a,"response_mismatch",`row ${a}: ${h}`)}}if(n.length===s.length)return{diverged:!1,index:null,reason:`identical: ${n.length} rows match`,reason_code:null,mutation_kind:null,fields_changed:[]};const o=n.length>s.length?"A":"B";return r(i,"length_mismatch",`run ${o} has ${Math.abs(n.length-s.length)} more row(s) from index ${i}`)}l(tk,"diffRuns");const nk=new Set(["malformed_json","index_mismatch","prev_hash_mismatch","payload_hash_mismatch","event_hash_mismatch","content_address_mismatch","bad_capability","capability_conflict"]);class sk extends N{static{l(this,"RunJournalRecoveryError")}name="RunJournalRecoveryError"}function ik(){return(performance.timeOrigin+performance.now())/1e3}l(ik,"journal_nowSeconds");function rk(e){return Math.round(e*1e3)/1e3}l(rk,"round3");function cl(e){if(typeof e.event!="string"||e.event==="")throw new w("run journal: the event type must be a non-empty string");for(const t of e.payload.keys())if(Ka.has(t))throw new w(`run journal: payload key ${JSON.stringify(t)} is reserved (${[...Ka].join(", ")})`);try{Kn(e.payload)}catch(t){throw t instanceof mt?new w(`run journal: payload: ${t.message}`):t}}l(cl,"checkRunEvent");const Lf="run-journal";function ok(e,t){return{count:e.count,head:e.head,start_ts:e.startTs??null,capabilities:[...e.capabilities],mutations_by_agent:[...e.mutationsByAgent],tail_sha256:t}}l(ok,"stateToJson");function Pf(e){if(!Array.isArray(e))return;const t=new Map;for(const n of e){if(!Array.isArray(n)||n.length!==2||typeof n[0]!="string")return;t.set(n[0],n[1])}return t}l(Pf,"pairs");function ak(e){const{count:t,head:n,start_ts:s,tail_sha256:i}=e,r=Pf(e.capabilities),o=Pf(e.mutations_by_agent);if(!(typeof t!="number"||!Number.isSafeInteger(t)||t<0||typeof n!="string")&&!(s!==null&&(typeof s!="number"||!Number.isFinite(s)))&&!(typeof i!="string"||r===void 0||o===void 0)&&![...r.values()].some(a=>typeof a!="string")&&![...o.values()].some(a=>typeof a!="number"||!Number.isSafeInteger(a)))return{state:{count:t,head:n,startTs:s??void 0,capabilities:r,mutationsByAgent:o},tail:i}}l(ak,"stateFromJson");class lk{static{l(this,"RunJournal")}file;lockFile;durable;options;constructor(t,n={}){this.file=t,this.lockFile=`${t}.lock`,this.durable=n.durable??!0,this.options=n}transact(t){Qe(g().dirname(this.file));const n=this.options.lockTimeoutMs??oc(this.options.env??process.env),s=li(this.lockFile,n===void 0?{}:{timeoutMs:n});try{let i;try{i=gn(this.file)}catch(k){throw W(k)?X(k,this.file,"cannot open"):k}const r=this.fromCheckpoint(i),{state:o,known:a}=r!==void 0?{state:r,known:i}:this.recover(i),c=t(o);for(const k of c)cl(k);if(c.length===0)return{rows:[],state:o};const u=[];let d=o.head,h=o.count;const f=(this.options.now??ik)();if(!Number.isFinite(f))throw new w("run journal: ts must be a finite number");const y=o.startTs??f;for(const k of c){const S=Lh(k.event,k.payload),v=Ph(d,k.event,S,h);u.push({ts:f,elapsed_s:rk(f-y),index:h,event:k.event,prev_hash:d,payload_hash:S,event_hash:v,payload:k.payload}),d=v,h++}const m=Buffer.from(u.map(k=>`${Dh(k)}
`).join(""),"utf8");s.refresh(),s.assertHeld();const b=zr(this.file,m,this.durable,i===void 0?"new":a),_={count:h,head:d,startTs:y,capabilities:new Map(o.capabilities),mutationsByAgent:new Map(o.mutationsByAgent)};for(const k of u)Df(_,k);return ve("run:after-write",this.options.env),b.untouched&&this.saveCheckpoint(di(b.after),_),{rows:u,state:_}}finally{s()}}key(){return yc(this.options.env??process.env)}checkpointFile(){return`${this.file}.checkpoint`}fromCheckpoint(t){const n=this.key();if(n===void 0||t===void 0)return;const s=eo(this.checkpointFile(),Lf,t,n),i=s===void 0?void 0:ak(s);if(i!==void 0){try{if(yn(this.file,Number(t.size))!==i.tail)return}catch{return}return i.state}}saveCheckpoint(t,n){const s=this.key();if(s===void 0||t===void 0)return;let i;try{i=yn(this.file,Number(t.size))}catch{return}Zr(this.checkpointFile(),Lf,this.file,t,ok(n,i),s)}record(t){return this.transact(()=>t).rows}state(){return this.transact(()=>[]).state}recover(t){let n;try{n=(0,p.readFileSync)(this.file)}catch(m){if(m.code==="ENOENT")n=Buffer.alloc(0);else throw W(m)?X(m,this.file,"cannot read"):m}let s,i=0,r=!1;Vs(n,0,n.length,(m,b,_,k)=>{if(ck(n.subarray(m,b))){r=k==="eof";return}i=s?.next??0,s={start:m,end:b,next:_,ending:k},r=!1});let o=n.length,a=!1;s!==void 0&&!Nr(n.subarray(s.start,s.end))?o=i:s!==void 0&&s.ending==="eof"?a=!0:r&&s!==void 0&&(o=s.next);const c=Ya(n.subarray(0,o),{maxListed:1/0}),u=c.errors.find(m=>nk.has(m.kind));if(u!==void 0)throw new sk(`${Qh(this.file,u)}; refusing to append. Remedy: move the journal aside (mv ${this.file} ${this.file}.corrupt) so a fresh run can start, and keep it for \`stepchain run verify\``);if(a)Jr(this.file,n.length,this.durable);else if(o<n.length){const m=qr(this.file,o,this.durable);(this.options.onTornTail??xc)({file:this.file,sideFile:m,bytes:n.length-o})}const d=c.entries[0]?.row.ts,h={count:c.count,head:c.count>0?c.head_hash:Fh,startTs:d!==void 0&&Number.isFinite(d)?d:void 0,capabilities:new Map,mutationsByAgent:new Map};for(const{row:m}of c.entries)Df(h,m);let f;try{f=gn(this.file)}catch{f=void 0}const y=f!==void 0&&t!==void 0&&!a&&o===n.length&&es(f,t)?f:void 0;return y!==void 0&&this.saveCheckpoint(y,h),{state:h,known:y}}}function ck(e){for(const t of e)if(!(t===32||t>=9&&t<=13||t>=28&&t<=31)){if(t<128)return!1;try{return un(le(e))===""}catch{return!1}}return!0}l(ck,"isBlankLine");function Df(e,t){if(t.event===tn){const n=t.payload.get("adapter"),s=t.payload.get("capability");typeof n=="string"&&typeof s=="string"&&e.capabilities.set(n,s)}else if(t.event===Xe){const n=t.payload.get("agent_id"),s=typeof n=="string"?n:"";e.mutationsByAgent.set(s,(e.mutationsByAgent.get(s)??0)+1)}}l(Df,"noteRow");const dl="journal.jsonl";function dk(e){return g().join(e,".sdd","runs")}l(dk,"runsDir");function Hf(e,t){return g().join(dk(e),ce(t,"run id"),dl)}l(Hf,"runJournalFile");function ul(e,t){if(!(e.includes("/")||e.includes(g().sep)||e.endsWith(".jsonl"))){be(e)||ce(e,"run id");const i=Hf(t,e);if(Ce(i)==="file")return i;if(Ce(e)===void 0)throw new w(`no run journal for run ${JSON.stringify(e)} (looked for ${i})`)}const s=Ce(e);if(s==="dir"){const i=g().join(e,dl);if(Ce(i)!=="file")throw new w(`${e}: no ${dl} in this directory`);return i}if(s==="file")return e;throw new w(`${e}: no such run journal file or directory`)}l(ul,"resolveRunJournal");function uk(e){return e instanceof Map?new Map(e):new Map(Object.entries(e))}l(uk,"toPayload");function kr(e,t,n){return new lk(Hf(e,t),n)}l(kr,"journalFor");function hk(e,t,n,s,i){if(n===Xe||n===tn)throw new w(`run record: record ${n} entries with \`run ${n===Xe?"mutation":"capability"}\``);const r={event:n,payload:uk(s)};cl(r);const o=kr(e,t,i),[a]=o.record([r]);return{row:a,file:o.file}}l(hk,"recordRunEvent");function fk(e){if(!Oh.includes(e))throw new w(`capability must be observed or declared-blind, got ${JSON.stringify(e)}`);return e}l(fk,"checkCapability");function Qf(e,t,n,s){const i=e.get(t);if(i===n)return[];if(i!==void 0)throw new N(`${s}: adapter ${JSON.stringify(t)} is already recorded as ${i} for this run; one capability per adapter per run`);return[{event:tn,payload:zw(t,n)}]}l(Qf,"capabilityPlan");function pk(e,t,n,s,i){if(typeof n!="string"||n==="")throw new w("capability: the adapter name is empty");const r=fk(s),o=kr(e,t,i),{rows:a}=o.transact(c=>Qf(c.capabilities,n,r,o.file));return{row:a[0],file:o.file}}l(pk,"recordCapability");function Uf(e,t,n,s){const i=[];for(const r of n){const o=ki(e,"provider.state_mutation",{actor:String(r.row.payload.get("agent_id")),resource_type:"run",resource_id:t,details:{run:t,agent:String(r.row.payload.get("agent_id")),kind:r.mutation.kind,content_address:r.content_address,step_index:r.mutation.step_index,flagged:r.mutation.flagged,journal_head:r.row.event_hash}},s.keyPath===void 0?{env:s.env}:{env:s.env,keyPath:s.keyPath});o!==void 0&&i.push(o)}return i}l(Uf,"mirror");function Gf(e,t){return e.filter(s=>s.event===Xe).map((s,i)=>({row:s,mutation:t[i],content_address:String(s.payload.get("content_address"))}))}l(Gf,"toRecords");function mk(e,t,n,s){if(ce(n.agentId,"agent id"),typeof n.kind!="string"||n.kind==="")throw new w("mutation: the kind is empty");if(n.stepIndex!==void 0&&(!pt(n.stepIndex)||n.stepIndex<0))throw new w("mutation: step index must be a non-negative integer");const i=Rh(s.env),r=kr(e,t,s),o=[],{rows:a}=r.transact(u=>{const d=n.stepIndex??u.mutationsByAgent.get(n.agentId)??0,h=Th(n.kind,n.detail??{},d,i!==void 0);return o.push(h),[{event:Xe,payload:jh(h,n.agentId)}]}),c=Gf(a,o);return{file:r.file,mutations:c,deterministic:i,warnings:Uf(e,t,c,s)}}l(mk,"recordMutation");function Wf(e,t,n,s,i,r){ce(s,"agent id");for(const y of i)if("event"in y){if(y.event.event===Xe||y.event.event===tn)throw new w(`run journal: ${y.event.event} entries are recorded as signals or capabilities`);cl(y.event)}else if(typeof y.signal.kind!="string"||y.signal.kind==="")throw new w("mutation: the kind is empty");const o=Rh(r.env),a=kr(e,t,r),c=[],{rows:u}=a.transact(y=>{c.length=0;const m=Qf(y.capabilities,n,"observed",a.file);let b=y.mutationsByAgent.get(s)??0;for(const _ of i){if("event"in _){m.push(_.event);continue}const k=Th(_.signal.kind,_.signal.detail,b++,o!==void 0);c.push(k),m.push({event:Xe,payload:jh(k,s)})}return m}),d=Gf(u,c),h={file:a.file,rows:u,mutations:d,deterministic:o,warnings:Uf(e,t,d,r)},f=u.find(y=>y.event===tn);return f!==void 0&&(h.capabilityRow=f),h}l(Wf,"recordObserved");function gk(e,t,n,s,i,r){ce(n,"agent id");const o=ek(s,i),a=Wf(e,t,Tf,n,o.signals.map(u=>({signal:u})),r),c={file:a.file,mutations:a.mutations,deterministic:a.deterministic,warnings:a.warnings,transcript:o};return a.capabilityRow!==void 0&&(c.capabilityRow=a.capabilityRow),c}l(gk,"ingestClaudeStream");function yk(e){let t=!1;try{t=(0,p.statSync)(e).isDirectory()}catch{}if(!t)throw new w(`cwd ${JSON.stringify(e)} is not an existing directory; nothing recorded`);return ko(e).root}l(yk,"claudeProjectRoot");const vr={prompt_id:null,prompt:null,compaction_pending:!1};function bk(e){return g().join(Zn(e),"claude")}l(bk,"claudeStateDir");function zf(e,t){return g().join(bk(e),`${ce(t,"session id")}.json`)}l(zf,"sessionStateFile");function wk(e,t){const n=g().relative(e,t).split(g().sep);let s=e;for(const i of n){s=g().join(s,i);let r;try{r=(0,p.lstatSync)(s)}catch{return}if(!r.isDirectory())throw new N(`${s}: not a directory (a symlink is never followed)`)}}l(wk,"realDirs");function _k(e,t){const n=zf(e,t);let s;try{if((0,p.lstatSync)(n).isSymbolicLink())return{state:vr,warning:`${n}: a symlink; ignored`};s=(0,p.readFileSync)(n)}catch{return{state:vr}}let i;try{i=Yn(s)}catch{return{state:vr,warning:`${n}: not JSON; ignored`}}return G(i)?{state:{prompt_id:typeof i.prompt_id=="string"?i.prompt_id:null,prompt:typeof i.prompt=="string"?i.prompt:null,compaction_pending:i.compaction_pending===!0}}:{state:vr,warning:`${n}: not a JSON object; ignored`}}l(_k,"readSessionState");function Ak(e,t,n){const s=zf(e,t),i=g().dirname(s);wk(e,i),Qe(i);const r={session_id:t,prompt_id:n.prompt_id,prompt:n.prompt,compaction_pending:n.compaction_pending},o=`${s}.${process.pid}.${(0,D.randomBytes)(4).toString("hex")}.tmp`;try{(0,p.writeFileSync)(o,`${Ae(r)}
`,{flag:"wx",mode:420}),(0,p.renameSync)(o,s)}catch(a){throw(0,p.rmSync)(o,{force:!0}),a}}l(Ak,"writeSessionState");const kk=["SessionStart","UserPromptSubmit","PostToolUse","PostToolUseFailure","PreCompact","Stop","SessionEnd"];function Hn(e){if(e instanceof Ze)return e.message;const t=e instanceof Error?e.message:String(e);return t.split(`
`)[0]??t}l(Hn,"hook_message");function Qn(e){return typeof e=="string"?e:null}l(Qn,"strOrNull");function vk(e){return new Map(e)}l(vk,"hook_payloadOf");function Ek(e,t){const n={id:Qn($e(e,"tool_use_id")),input:$e(e,"tool_input")??null,name:Qn($e(e,"tool_name"))};let s;if(e.event==="PostToolUseFailure"){const a={error:$e(e,"error")??null},c=$e(e,"is_interrupt");typeof c=="boolean"&&(a.is_interrupt=c),s=a}else s=$e(e,"tool_response")??null;const i=t.prompt!==null&&(e.promptId===void 0||t.prompt_id===e.promptId)?t.prompt:null,r=Of(e,"tool_use_id"),o=e.transcriptPath!==void 0&&r!==void 0?Q_(e.transcriptPath,r):void 0;return{input:e.bytes,tool_call:n,tool_result:s,prompt:i,model:o??null}}l(Ek,"toolStep");function Sk(e,t){const n={event:void 0,root:void 0,agent:void 0,recorded:[],warnings:[],errors:[]};let s;try{s=Rf(e)}catch(o){return n.errors.push(Hn(o)),n}n.event=s.event;let i;try{i=t.root??yk(s.cwd)}catch(o){return n.errors.push(`${s.event}: ${Hn(o)}`),n}const r=al(s.sessionId);n.root=i,n.agent=r;try{$k(s,i,r,t,n)}catch(o){n.errors.push(`${s.event}: ${Hn(o)}`)}return n}l(Sk,"handleClaudeHook");function $k(e,t,n,s,i){const r=s.env,o=l(()=>{const d=_k(t,e.sessionId);return d.warning!==void 0&&i.warnings.push(d.warning),d.state},"state"),a=l(d=>{try{Ak(t,e.sessionId,d)}catch(h){i.warnings.push(`session state not saved: ${Hn(h)}`)}},"saveState"),c=l((d,h)=>{try{const f=Wf(t,n,Tf,n,d,{env:r});return i.warnings.push(...f.warnings),f.deterministic!==void 0&&f.mutations.length>0&&i.warnings.push(`${f.deterministic} is set: the compaction was recorded flagged (run verify fails)`),i.recorded.push(h),!0}catch(f){return i.errors.push(`${h} not recorded in the run journal ${n}: ${Hn(f)}`),!1}},"run"),u=l((d,h)=>({event:{event:d,payload:vk(h)}}),"event");switch(e.event){case"PostToolUse":case"PostToolUseFailure":{const d=Ek(e,o());try{const h=pd(Be(t,n),d,{root:t,env:r,...s.snapshot===!1?{snapshot:!1}:{}});i.row=h.row,i.warnings.push(...h.warnings),i.recorded.push(`step ${h.row.seq}`)}catch(h){let f="";try{f=`; its payload is kept as ${new nt(tt(t)).put(e.bytes)} in ${tt(t)}`}catch{}i.errors.push(`step not recorded in ${n}: ${Hn(h)}${f}`)}return}case"UserPromptSubmit":{const d=Qn($e(e,"prompt"));a({...o(),prompt_id:e.promptId??null,prompt:d}),c([u("prompt",[["prompt_id",e.promptId??null],["prompt",d]])],"run event prompt");return}case"SessionStart":{const d=Qn($e(e,"source")),h=o(),f=[];d==="compact"&&!h.compaction_pending&&f.push({signal:{kind:"compact_boundary",detail:{}}});const y=$e(e,"model");f.push(u("session_start",[["source",d],...typeof y=="string"?[["model",y]]:[]])),c(f,d==="compact"&&!h.compaction_pending?"compaction and run event session_start":"run event session_start")&&d==="compact"&&a({...h,compaction_pending:!1});return}case"PreCompact":{const d=$e(e,"trigger");c([{signal:{kind:"compact_boundary",detail:typeof d=="string"?{trigger:d}:{}}}],"compaction")&&a({...o(),compaction_pending:!0});return}case"Stop":c([u("stop",[["prompt_id",e.promptId??null],["last_assistant_message",Qn($e(e,"last_assistant_message"))]])],"run event stop");return;case"SessionEnd":c([u("session_end",[["reason",Qn($e(e,"reason"))]])],"run event session_end");return;default:return}}l($k,"hook_handle");const qf=4e3;function xk(e,t){const n=e.length,s=t.length,i=s+1,r=new Uint32Array((n+1)*i);for(let u=n-1;u>=0;u--)for(let d=s-1;d>=0;d--)r[u*i+d]=e[u]===t[d]?r[(u+1)*i+d+1]+1:Math.max(r[(u+1)*i+d],r[u*i+d+1]);const o=[];let a=0,c=0;for(;a<n||c<s;)a<n&&c<s&&e[a]===t[c]?(o.push({kind:" ",text:e[a],a,b:c}),a++,c++):c<s&&(a===n||r[a*i+c+1]>=r[(a+1)*i+c])?(o.push({kind:"+",text:t[c],a,b:c}),c++):(o.push({kind:"-",text:e[a],a,b:c}),a++);return o}l(xk,"ops");function Jf(e){if(e==="")return[];const t=e.split(`
`);return t.at(-1)===""&&t.pop(),t}l(Jf,"split");function Ik(e,t,n,s,i=3){if(e===t)return[];const r=Jf(e),o=Jf(t),a=[`--- ${n}`,`+++ ${s}`];if(r.length>qf||o.length>qf)return[...a,`(${r.length} lines before, ${o.length} after)`];const c=xk(r,o),u=[...a];let d=0;for(;d<c.length;){if(c[d].kind===" "){d++;continue}const h=Math.max(0,d-i);let f=d;for(let v=d;v<c.length;v++)if(c[v].kind!==" ")f=v;else if(v-f>2*i)break;const y=Math.min(c.length,f+i+1),m=c.slice(h,y),b=m[0].a,_=m[0].b,k=m.filter(v=>v.kind!=="+").length,S=m.filter(v=>v.kind!=="-").length;u.push(`@@ -${k===0?b:b+1},${k} +${S===0?_:_+1},${S} @@`);for(const v of m)u.push(`${v.kind}${v.text}`);d=y}return u}l(Ik,"unifiedDiff");const Ck="stepchain hook claude",Bk={PostToolUse:"*",PostToolUseFailure:"*"};function hl(e){return/(?:^|[\s/'"=])(?:stepchain|cli\.js)['"]?\s+hook\s+claude(?:\s|$)/.test(e)}l(hl,"isStepchainHookCommand");function Gs(e){return e instanceof Map}l(Gs,"settings_isObj");function Er(e,t,n=""){const s=n+t;return Array.isArray(e)?e.length===0?"[]":`[
${e.map(i=>s+Er(i,t,s)).join(`,
`)}
${n}]`:e instanceof Map?e.size===0?"{}":`{
${[...e].map(([r,o])=>`${s}${JSON.stringify(r)}: ${Er(o,t,s)}`).join(`,
`)}
${n}}`:typeof e=="string"?JSON.stringify(e):e!==null&&typeof e=="object"&&!(e instanceof De)?Er(new Map(Object.entries(e)),t,n):Ae(e,{allowNonFinite:!0})}l(Er,"stringifyIndented");function Ok(e,t){let n=1;for(let s=0;s<t-1&&s<e.length;s++)e.charCodeAt(s)===10&&n++;return n}l(Ok,"lineOf");function Sr(e){try{if((0,p.lstatSync)(e).isSymbolicLink())throw new N(`${e}: is a symlink; refusing to follow it`)}catch(t){if(t instanceof N)throw t}}l(Sr,"refuseSymlink");function Rk(e){Sr(g().dirname(e)),Sr(e);let t;try{t=(0,p.readFileSync)(e)}catch(i){const r=i.code;if(r==="ENOENT")return{text:null,doc:new Map};throw new w(`${e}: cannot read settings: ${r??i.message}`)}let n;try{n=le(t)}catch{throw new w(`${e}: settings file is not valid UTF-8`)}if(n.trim()==="")return{text:n,doc:new Map};let s;try{s=ye(n,{objects:"map"})}catch(i){throw i instanceof Ie?new w(`${e}:${Ok(n,i.column)}: not JSON: ${i.reason}`):new w(`${e}: not JSON: too large or too deeply nested`)}if(!Gs(s))throw new w(`${e}: settings file is not a JSON object`);return{text:n,doc:s}}l(Rk,"readSettings");function Tk(e){return(e===null?null:/\n([ \t]+)\S/.exec(e))?.[1]??"  "}l(Tk,"indentOf");function Kf(e,t={}){const n=t.command??Ck;if(!hl(n))throw new w(`--command ${JSON.stringify(n)} does not run \`stepchain hook claude\``);const{text:s,doc:i}=Rk(e),r=l(h=>{throw new w(`${e}: ${h}; not the Claude Code hook settings format, so it is left as it is`)},"shape");let o=i.get("hooks");o!==void 0&&!Gs(o)&&r('"hooks" is not an object');const a=[],c=[];o===void 0&&!t.remove&&(o=new Map,i.set("hooks",o));for(const h of kk){if(o===void 0)break;const f=o,y=f.get(h);y!==void 0&&!Array.isArray(y)&&r(`"hooks.${h}" is not a list`);const m=y??[];let b=0;for(const _ of m){Gs(_)||r(`an entry of "hooks.${h}" is not an object`);const k=_.get("hooks");Array.isArray(k)||r(`an entry of "hooks.${h}" has no "hooks" list`);for(const S of k){Gs(S)||r(`a hook of "hooks.${h}" is not an object`);const v=S.get("command");S.get("type")==="command"&&typeof v=="string"&&hl(v)&&(b++,!t.remove&&t.command!==void 0&&v!==n&&(S.set("command",n),c.push(h)))}}if(t.remove){if(b===0)continue;const _=[];for(const k of m){const S=k.get("hooks"),v=S.filter(A=>{const x=A.get("command");return!(A.get("type")==="command"&&typeof x=="string"&&hl(x))});v.length===S.length?_.push(k):v.length>0&&(k.set("hooks",v),_.push(k))}_.length>0?f.set(h,_):f.delete(h),a.push(h)}else if(b===0){const _=new Map,k=Bk[h];k!==void 0&&_.set("matcher",k),_.set("hooks",[new Map([["type","command"],["command",n]])]),f.set(h,[...m,_]),a.push(h)}}t.remove&&Gs(o)&&o.size===0&&a.length>0&&i.delete("hooks");const u=a.length>0||c.length>0,d=u?`${Er(i,Tk(s))}
`:s??"";return{file:e,before:s,after:d,changed:u,events:a,updated:c,diff:u?Ik(s??"",d,s===null?"/dev/null":e,e):[]}}l(Kf,"planClaudeSettings");function Nk(e){if(!e.changed)return;const t=g().dirname(e.file);Sr(t),Sr(e.file),Qe(t);let n=420;try{n=(0,p.lstatSync)(e.file).mode&511}catch{}let s;try{s=(0,p.readFileSync)(e.file,"utf8")}catch{s=null}if(s!==e.before)throw new N(`${e.file}: changed while it was being updated; run it again`);const i=g().join(t,`.${g().basename(e.file)}.${process.pid}.${(0,D.randomBytes)(4).toString("hex")}.tmp`);try{(0,p.writeFileSync)(i,e.after,{flag:"wx",mode:n}),(0,p.renameSync)(i,e.file)}catch(r){throw(0,p.rmSync)(i,{force:!0}),W(r)?X(r,e.file,"cannot write"):r}}l(Nk,"writeClaudeSettings");function fl(e){if(/^[A-Za-z0-9_/.,:@%+=-]+$/.test(e))return e;if(/^[\x20-\x7e]*$/.test(e))return`'${e.replace(/'/g,"'\\''")}'`;let t="$'";for(const n of e){const s=n.codePointAt(0);n==="'"||n==="\\"?t+=`\\${n}`:s<32||s===127||s>=128&&s<160?t+=`\\x${s.toString(16).padStart(2,"0")}`:t+=n}return`${t}'`}l(fl,"shellWord");function jk(e){const t=e.configDir===void 0?"":`CLAUDE_CONFIG_DIR=${fl(e.configDir)} `;return`cd ${fl(e.cwd)} && ${t}claude --resume ${e.sessionId}`}l(jk,"resumeCommand");function Fk(e,t,n,s){const i=[];let r=e,o=t;for(let a=0;r!==void 0&&a<32;a++){const c=tt(r);i.push(c);const u=new nt(c).get(n);if(u!==void 0&&ae(u)===n)return u;const h=Co(Si(r,o))?.fork;if(!G(h)||typeof h.parent_root!="string"||typeof h.parent_session_id!="string")break;r=h.parent_root,o=h.parent_session_id}throw new N(`step ${s} has no stored hook payload (input ${n} is not in ${i.join(" or ")}); only steps recorded by \`stepchain hook claude\` can resume a conversation`)}l(Fk,"payloadBlob");function Mk(e){return g().resolve(e.CLAUDE_CONFIG_DIR||g().join(e.HOME||(0,Ft.homedir)(),".claude"))}l(Mk,"configDirOf");function Lk(e){const t=g().resolve(e.root),n=Lt(t,e.agent);if(!(0,p.existsSync)(n))throw new w(`no journal for ${JSON.stringify(e.agent)} (looked for ${n})`);const s=co(n);if(!Number.isSafeInteger(e.fromStep)||e.fromStep<0||e.fromStep>=s.steps)throw new w(`${n}: step ${e.fromStep} is out of range (the journal has ${s.steps} step${s.steps===1?"":"s"})`);const i=s.entries[e.fromStep].row,r=s.entries.slice(e.fromStep+1).map(E=>G(E.row.tool_call)?E.row.tool_call.id:void 0).filter(E=>typeof E=="string"),o=`${n}:${e.fromStep+1}`;let a;try{a=Rf(Fk(t,e.agent,i.input_hash,e.fromStep),`${o}: input`)}catch(E){throw E instanceof w?new N(`${E.message}; not a step recorded by \`stepchain hook claude\``):E}if(a.event!=="PostToolUse"&&a.event!=="PostToolUseFailure")throw new N(`${o}: step ${e.fromStep} was recorded from a ${a.event} payload, not a tool call`);const c=Of(a,"tool_use_id"),u=i.tool_call;if(c===void 0||!G(u)||u.id!==c)throw new N(`${o}: the step's tool call and its stored payload do not name the same tool_use_id`);if(a.transcriptPath===void 0)throw new N(`${o}: the step's payload names no transcript_path`);const d=U_(a.transcriptPath,a.sessionId);if(d===void 0)throw new N(`${a.transcriptPath}: not laid out as <config>/projects/<dir>/${a.sessionId}.jsonl; stepchain cannot tell where Claude Code would look for the fork`);let h;try{if(!(0,p.lstatSync)(a.transcriptPath).isFile())throw new N(`${a.transcriptPath}: not a regular file`);h=(0,p.readFileSync)(a.transcriptPath)}catch(E){throw E instanceof N?E:new w(`${a.transcriptPath}: cannot read the session's transcript: ${E.code??E.message}`)}const f=e.sessionId??(0,D.randomUUID)(),y=VA(h,a.transcriptPath,a.sessionId,c,f,r),m=[y.firstCwd,a.cwd,y.cutCwd].find(E=>E!==void 0&&Xa(E)===d.dirName);if(m===void 0)throw new N(`${a.transcriptPath}: stored under ${d.dirName}, which is not the name of the session's working directory as stepchain derives it; refusing to guess where Claude Code would look for the fork`);const b=g().relative(t,m);if(b.startsWith("..")||g().isAbsolute(b))throw new N(`the session ran in ${m}, outside the project root ${t}`);const _=al(f),k=g().join(Nd(t,_),b),S=Xa(k);if(S===void 0)throw new N(`${k}: Claude Code names its session directory for this path in a way stepchain cannot reproduce (longer than 200 characters, or not plain ASCII); the conversation is not forked`);const v=[],A=g().join(g().dirname(a.transcriptPath),a.sessionId);try{(0,p.lstatSync)(A).isDirectory()&&v.push(`${A} (subagent transcripts) is not copied; the resumed conversation has their results as the main transcript recorded them`)}catch{}const x=g().dirname(d.projectsDir);return{sessionId:f,forkId:_,parentTranscript:a.transcriptPath,cut:y,toolUseId:c,transcript:g().join(d.projectsDir,S,`${f}.jsonl`),cwd:k,configDir:x===Mk(e.env)?void 0:x,warnings:v}}l(Lk,"planClaudeResume");function Pk(e){const t=g().dirname(e.transcript);let n;try{Qe(t,448),n=(0,p.openSync)(e.transcript,"wx",384)}catch(i){throw W(i)?X(i,e.transcript,"cannot create the fork's transcript"):i instanceof w?new w(`cannot create the fork's transcript: ${i.message}`):i}try{He(n,e.cut.bytes),(0,p.fsyncSync)(n)}catch(i){throw(0,p.closeSync)(n),(0,p.rmSync)(e.transcript,{force:!0}),W(i)?X(i,e.transcript,"cannot write"):i}(0,p.closeSync)(n),gt(t);const s=g().join(e.cwd,".claude","settings.json");try{if(Kf(s).events.length>0)return[`${s} does not run \`stepchain hook claude\` for every event; run \`stepchain init claude --root ${fl(e.cwd)}\` before resuming to keep recording`]}catch(i){return[`${s}: ${i.message}`]}return[]}l(Pk,"placeClaudeResume");async function Dk(e){const t=Lk(e),n=Ge(g().resolve(e.root)),s=(0,p.existsSync)(n),i=await Bo({root:e.root,sessionId:e.agent,fromStep:e.fromStep,forkId:t.forkId,env:e.env,...e.label===void 0?{}:{label:e.label}});let r;try{r=Pk(t)}catch(o){let a="the fork was removed again";try{if(await Ld(g().resolve(e.root),t.forkId,{force:!0,tombstone:!1,env:e.env}),!s)try{(0,p.rmdirSync)(n)}catch{}}catch(c){a=`removing the fork failed too (${c.message.split(`
`)[0]}); remove it with \`stepchain fork rm ${t.forkId} --force\``}throw new N(`fork ${e.agent}: ${o.message}; ${a}`)}return{fork:i,plan:t,command:jk(t),warnings:[...t.warnings,...r]}}l(Dk,"forkClaudeSession");const Hk="With --resume (a session recorded by `stepchain hook claude`), also a Claude Code conversation that ends right after step N and the command that resumes it.";async function Qk(e,t,n){const s=e.values.get("from-step");if(s===void 0)throw new w("fork --resume: give --from-step N (the step to resume after)");const i=e.values.get("label"),r=await Dk({root:ne(e,t),agent:n,fromStep:bt(s,"--from-step"),env:t.env,...i===void 0?{}:{label:i}});for(const a of[...r.fork.warnings,...r.warnings])t.err(`stepchain: warning: ${R(a)}`);if(e.flags.has("json"))return t.json({...Md(r.fork),claude_session_id:r.plan.sessionId,claude_transcript:r.plan.transcript,resumes_after_tool_use_id:r.plan.toolUseId,resume_command:r.command}),0;const o=r.fork;return t.out(R(`forked ${o.parent_session_id} at step ${o.from_step} as ${o.fork_session_id}`)),t.out(R(`  branch     ${o.fork_branch}`)),t.out(R(`  worktree   ${o.fork_worktree}`)),t.out(R(`  commit     ${o.fork_commit}${o.restored_from_snapshot?` (the files of step ${o.from_step})`:" (the parent's current commit)"}`)),o.journal_path!==null&&t.out(R(`  journal    ${o.journal_path} (steps 0..${o.from_step})`)),t.out(R(`  transcript ${r.plan.transcript} (lines 1..${r.plan.cut.line} of the session, ending with the result of ${r.plan.toolUseId})`)),t.out(`resume the conversation (its next step is recorded as step ${(o.from_step??0)+1} of ${o.fork_session_id}):`),t.out(`  ${r.command}`),0}l(Qk,"runForkResume");const Uk={name:["fork"],usage:"<session> [--from-step N [--resume]] [--label L] [--root DIR] [--json]",summary:"Fork a recorded run into a sibling git worktree (.sdd/worktrees/<fork_id>, branch fork/<branch>/<fork_id>): with --from-step, the verified prefix [0..N] and the files of step N. "+Hk,description:"<session> is an agent id with a journal (or a session file) in this project. The parent journal must verify first. The fork gets the journal prefix [0..N] and, when step N has a snapshot, exactly the files the agent had at step N. Nothing is left behind when a step fails. Remove a fork with `stepchain fork rm`.",options:{...Z,...J,"from-step":{kind:"value",value:"N",description:"Fork at step N (0-based): the prefix [0..N] and the files of step N. Without it: a session-level fork."},label:{kind:"value",value:"L",description:"A label, kept in the fork block and used in the fork id."},resume:{kind:"flag",description:"With --from-step, for a Claude Code session recorded by `stepchain hook claude`: also a conversation that ends right after step N, and the `claude --resume` command to carry on."}},examples:[{run:'stepchain fork agent-1 --from-step 3 --label "try another fix"',what:"a worktree with the files of step 3"},{run:"stepchain fork claude-<session_id> --from-step 3 --resume",what:"fork a Claude Code session and resume it"},{run:"stepchain forks",what:"list the forks as a tree"}],exitCodes:{0:"forked",1:"the parent journal does not verify, the worktree exists, or git failed (nothing left behind)",2:"usage or input error (not a git repository, unknown session, step out of range)"},async run(e,t){const[n]=q(e,["session"],"fork"),s=e.values.get("from-step"),i=e.values.get("label");if(i!==void 0&&i.trim()==="")throw new w("--label: empty label");if(e.flags.has("resume"))return Qk(e,t,n);const r=await Bo({root:ne(e,t,{create:!0}),sessionId:n,...s===void 0?{}:{fromStep:bt(s,"--from-step")},...i===void 0?{}:{label:i},env:t.env});for(const o of r.warnings)t.err(`stepchain: warning: ${o}`);return e.flags.has("json")?(t.json(Md(r)),0):(t.out(`forked ${r.parent_session_id}${r.from_step===null?" (session-level)":` at step ${r.from_step}`} as ${r.fork_session_id}`),t.out(`  branch    ${r.fork_branch}`),t.out(`  worktree  ${r.fork_worktree}`),t.out(`  commit    ${r.fork_commit}${r.restored_from_snapshot?` (the files of step ${r.from_step})`:" (the parent's current commit)"}`),r.parent_step_hash!==null&&t.out(`  parent step_hash ${r.parent_step_hash}`),r.journal_path!==null&&t.out(`  journal   ${r.journal_path}`),t.out(`  session   ${r.snapshot_path}`),r.journal_path!==null&&t.out(`continue it: stepchain append ${r.fork_session_id} --root ${r.fork_worktree} ...`),0)}},Gk={name:["fork","rm"],usage:"<fork_id> [--force] [--root DIR] [--json]",summary:"Remove a fork: its worktree, its branch and its snapshot refs (a tombstone refuses later appends to it). Refuses steps recorded since the fork, a writer holding its lock, or uncommitted changes unless --force.",description:"The branch's last commit is printed, so `git branch <name> <commit>` brings it back. A fork that has forks of its own is refused: remove them first. A half-made fork (its creation was interrupted) is removed as far as it got.",options:{...Z,...J,force:{kind:"flag",description:"Remove it even with steps recorded since the fork point, a writer holding its journal lock, uncommitted changes or untracked files."}},examples:[{run:"stepchain fork rm fork-try-another-fix-20261202-090414-f5aeff",what:"remove one fork"}],exitCodes:{0:"removed",1:"refused (steps since the fork point, a live writer, uncommitted changes without --force; forks of its own)",2:"usage or input error (no such fork)"},async run(e,t){const[n]=q(e,["fork_id"],"fork rm"),s=await Ld(ne(e,t),n,{force:e.flags.has("force"),env:t.env});return e.flags.has("json")?(t.json({...s}),0):(t.out(`removed fork ${s.fork_session_id}`),t.out(`  worktree ${s.worktree}`),s.branch!==null&&t.out(`  branch   ${s.branch}${s.branch_commit?` (was ${s.branch_commit})`:""}`),t.out(`  snapshot refs ${s.removed_snapshot_refs}`),s.tombstone!==null&&t.out(`  tombstone ${s.tombstone}`),0)}},Wk={name:["forks"],usage:"[--root DIR] [--json]",summary:"Every fork of this repository as a tree: parent, fork step, branch, worktree, steps recorded since.",description:"Built from `git worktree list` and each fork worktree's session file: it cannot disagree with what is on disk. A fork whose directory was deleted by hand is listed as missing.",options:{...Z,...J},examples:[{run:"stepchain forks --json",what:"the tree as JSON"}],exitCodes:{0:"listed",2:"usage or input error (not a git repository)"},async run(e,t){q(e,[],"forks");const n=await $i(ne(e,t),t.env);if(e.flags.has("json"))t.json({forks:n});else for(const s of E0(n))t.out(s);return 0}},zk={name:["hook","claude"],usage:"[--root DIR] [--no-snapshot]  (reads one Claude Code hook payload on stdin)",summary:"Record one Claude Code hook event: a tool call becomes a step of the journal claude-<session_id>, session events and compactions go to its run journal. Never blocks the agent (exit 0 or 1, never 2).",description:"Configured as a Claude Code hook by `stepchain init claude`; Claude Code runs it with one JSON payload on stdin (PostToolUse, PostToolUseFailure, SessionStart, UserPromptSubmit, PreCompact, Stop, SessionEnd). The project root is found from the payload's cwd. It prints nothing on stdout; a failure is one line on stderr, and whatever could be recorded is.",options:{...Z,"no-snapshot":{kind:"flag",description:"Do not store a worktree snapshot with each step."}},examples:[{run:`echo '{"hook_event_name":"SessionStart","session_id":"s1","cwd":"'$PWD'","source":"startup"}' | stepchain hook claude`,what:"what Claude Code does at the start of a session"}],maxExitCode:1,exitCodes:{0:"recorded (or nothing to record)",1:"not recorded (the reason on stderr); never 2, which would block the agent"},run(e,t){q(e,[],"hook claude");let n;try{n=t.readStdin()}catch(r){return t.err(`stepchain: hook claude: cannot read the payload on stdin: ${r.message}`),1}const s=e.values.get("root"),i=Sk(n,{env:t.env,...s===void 0?{}:{root:g().resolve(t.cwd,s)},...e.flags.has("no-snapshot")?{snapshot:!1}:{}});for(const r of i.warnings)t.err(`stepchain: hook claude: warning: ${R(r)}`);for(const r of i.errors)t.err(`stepchain: hook claude: ${R(r)}`);return e.positionals.length>0&&t.err(`stepchain: hook claude: unexpected argument ${JSON.stringify(e.positionals[0])} (ignored)`),i.errors.length>0?1:0}};function qk(e,t){for(const n of(t.PATH??"").split(g().delimiter)){if(n==="")continue;const s=g().join(n,e);try{if(!(0,p.statSync)(s).isFile())continue;return(0,p.accessSync)(s,p.constants.X_OK),!0}catch{}}return!1}l(qk,"onPath");function Jk(e,t,n,s){const i=[];e===void 0&&!qk("stepchain",s.env)&&i.push('no `stepchain` on this PATH: Claude Code could not run the hook and nothing would be recorded; install it on the PATH (npm install -g stepchain) or give --command "npx stepchain hook claude"');const r=g().join(n,".claude","settings.json");return t===r&&g().resolve(s.cwd)!==n&&i.push(`Claude Code reads ${r} only when started in ${n}: start \`claude\` there`),i}l(Jk,"installWarnings");const Kk={name:["init","claude"],usage:"[--settings FILE] [--remove] [--command CMD] [--dry-run] [--root DIR] [--json]",summary:"Install stepchain's Claude Code hooks into .claude/settings.json (or --settings FILE), keeping every other setting; idempotent; prints the diff. --remove takes them out again.",options:{...Z,...J,settings:{kind:"value",value:"FILE",description:"The settings file to change (default <root>/.claude/settings.json; created when missing)."},remove:{kind:"flag",description:"Take stepchain's hook entries out again, leaving everything else."},command:{kind:"value",value:"CMD",description:'The command the hooks run (default `stepchain hook claude`: `stepchain` must then be on the PATH Claude Code gives its hooks; e.g. --command "npx stepchain hook claude" when it is not).'},"dry-run":{kind:"flag",description:"Print the diff without writing."}},description:"Merges one hook entry per event stepchain records (PostToolUse, PostToolUseFailure, SessionStart, UserPromptSubmit, PreCompact, Stop, SessionEnd) into the settings, keeping every other hook and setting, their order and indentation. Running it twice changes nothing. A malformed or symlinked settings file is refused.",examples:[{run:"stepchain init claude",what:"start recording every Claude Code session in this project"},{run:"stepchain init claude --remove",what:"stop recording"}],exitCodes:{0:"installed, removed, or already so",1:"refused (a symlinked settings file)",2:"usage or input error (malformed settings, naming the line)"},run(e,t){q(e,[],"init claude");const n=ne(e,t),s=e.values.get("settings"),i=s===void 0?g().join(n,".claude","settings.json"):g().resolve(t.cwd,s),r=e.flags.has("remove"),o=e.values.get("command"),a=Kf(i,{...o===void 0?{}:{command:o},remove:r}),c=e.flags.has("dry-run");c||Nk(a);const u=r?[]:Jk(o,a.file,n,t);for(const f of u)t.err(`stepchain: init claude: warning: ${R(f)}`);if(e.flags.has("json"))return t.json({file:a.file,changed:a.changed,written:a.changed&&!c,removed:r,events:a.events,updated:a.updated,diff:a.diff,warnings:u}),0;const d=R(g().relative(t.cwd,a.file)||a.file);if(!a.changed)return t.out(r?`${d}: no stepchain hooks to remove; unchanged`:`${d}: stepchain's hooks are already installed; unchanged`),0;for(const f of a.diff)t.out(R(f));const h=c?"would be":"were";return r?t.out(`stepchain's hooks ${h} removed from ${d} (${a.events.join(", ")})`):(a.events.length>0&&t.out(`stepchain's hooks ${h} added to ${d} for ${a.events.join(", ")}`),a.updated.length>0&&t.out(`the hook command ${h} updated for ${a.updated.join(", ")}`),c||t.out("Claude Code sessions started in this project are now recorded (journal claude-<session_id>).")),0}},Yk={name:["keygen"],usage:"-o PRIVATE.pem [--public PUBLIC.pem] [--json]",summary:"Create an Ed25519 key pair for signing receipts (private key mode 0600; never overwrites a file).",description:"The private key is written as PEM PKCS#8 with mode 0600, the public key as PEM SPKI. An existing file is never replaced (a lost private key cannot be recovered): remove it first to make a new one.",options:{...J,output:{kind:"value",short:"o",value:"FILE",description:"Where to write the private key (required)."},public:{kind:"value",value:"FILE",description:"Where to write the public key (default: print it, for verifiers)."}},examples:[{run:"stepchain keygen -o stepchain.key --public keys/receipts.pub",what:"a key pair; commit only the .pub"}],exitCodes:{0:"written",2:"usage error, a file exists, or its directory does not"},run(e,t){q(e,[],"keygen");const n=e.values.get("output");if(n===void 0)throw new w("keygen: missing -o PRIVATE.pem");const s=e.values.get("public"),i=g().resolve(t.cwd,n),r=s===void 0?void 0:g().resolve(t.cwd,s),o=ay(i,r);return e.flags.has("json")?(t.json({ok:!0,key_id:o.keyId,private_key:i,public_key:r??null,public_key_pem:o.publicKeyPem}),0):(t.out(`wrote private key ${n} (mode 0600), key id ${o.keyId}`),s!==void 0?t.out(`wrote public key ${s}`):t.out(`public key (give it to verifiers, e.g. save as a .pem file):
${o.publicKeyPem.trimEnd()}`),0)}},Vk={name:["publish"],usage:"<agent|dir|file> -o RECEIPT --opt-in [--redact FIELDS] [--force] [--root DIR] [--agent-id ID] [--sign-key FILE] [--json]",summary:"Write a privacy-redacted receipt (default redacts prompt,tool_result; re-anchored chain, no blobs). Requires --opt-in; the journal is untouched.",description:'Each redacted field that is not null becomes "<<redacted>>", the chain is recomputed over the redacted rows (a new head, printed beside the original), blob_refs are emptied and no blobs are bundled.',options:{...$f,"opt-in":{kind:"flag",description:"Required: nothing leaves .sdd/runtime/ without this explicit opt-in."},redact:{kind:"value",value:"FIELDS",description:"Comma-separated fields to redact, of prompt, model, tool_call, tool_result (default prompt,tool_result)."}},examples:[{run:"stepchain publish agent-1 -o public.receipt.tar --opt-in",what:"redact prompts and tool results"},{run:"stepchain publish agent-1 -o public.receipt.tar --opt-in --redact prompt,tool_call,tool_result --sign-key stepchain.key",what:"redact more, and sign"}],exitCodes:{0:"written",1:"the journal does not verify (nothing written)",2:"usage or input error (no --opt-in, the output exists without --force, a bad field)"},run(e,t){if(!e.flags.has("opt-in"))throw new w("publish: refusing without --opt-in (receipts stay local unless you explicitly opt in); nothing was written");const{journal:n,out:s,outFile:i,options:r}=xf(e,t,"publish"),o={...r,optIn:!0},a=e.values.get("redact");a!==void 0&&(o.redact=jw(a));const c=Pw(n.file,i,o);for(const u of c.warnings)t.err(`stepchain: warning: ${u}`);return e.flags.has("json")?(t.json({ok:!0,receipt:i,agent_id:c.manifest.agent_id,steps:c.steps,redacted:c.redacted,original_head:c.original_head,published_head:c.published_head,signed:c.signed,key_id:c.key_id}),0):(t.out(`published ${c.steps} redacted step${c.steps===1?"":"s"} of ${c.manifest.agent_id} to ${s} (redacted: ${c.redacted.join(", ")})`),t.out(`  original head  ${c.original_head}  (local journal, unchanged)`),t.out(`  published head ${c.published_head}  (verify the receipt against this one)`),t.out(`  signed         ${c.signed?`yes (key id ${c.key_id})`:"no"}`),0)}},Xk={name:["receipt","verify"],usage:"RECEIPT [--expected-head HEX] [--public-key FILE]... [--require-blobs] [--json]",summary:"Verify a receipt offline without extracting it: members, manifest, signature, chain, blobs. Exit 0 holds, 1 does not, 2 bad input.",description:`Nothing is extracted: member names and types, the manifest, the signature, the chain from genesis, the manifest against the chain, and every bundled blob's digest are checked in memory. A signed receipt verifies only under a trusted key: given none, it fails with no_trusted_key ("signature NOT checked").`,options:{...J,"expected-head":{kind:"value",value:"HEX",description:"The head the chain must end at (e.g. printed when the receipt was exported)."},"public-key":kn,"require-blobs":{kind:"flag",description:"Fail when a blob the manifest names is not bundled."}},examples:[{run:"stepchain receipt verify run.receipt.tar --public-key keys/receipts.pub",what:"a signed receipt"},{run:"stepchain receipt verify public.receipt.tar --expected-head 7af96d16...",what:"pinned to a head"}],exitCodes:{0:"the receipt verifies (and its signature, under a trusted key, when signed)",1:"a problem, each printed (a signature not checked is one)",2:"usage or input error (no such file, a bad key)"},run(e,t){const[n]=q(e,["receipt"],"receipt verify"),s=yd(e,"expected-head"),i=(e.lists.get("public-key")??[]).map(o=>ds(g().resolve(t.cwd,o))),r=Bw(g().resolve(t.cwd,n),{publicKeys:i,requireBlobs:e.flags.has("require-blobs"),...s===void 0?{}:{expectedHead:s}});if(e.flags.has("json"))t.json(r);else if(r.ok){const o=jn(r,i.length).text;t.out(`OK ${n}: ${r.steps} step${r.steps===1?"":"s"}, head ${r.head_hash}, ${o}, blobs ${r.blobs.bundled.length} bundled, ${r.blobs.missing.length} missing`),r.published&&t.out(`  published receipt: ${r.redacted_fields.join(", ")} redacted, the chain re-anchored over the redacted rows (not the original head)`),t.out("  not signed: step times (ts) and which step lists which blob (blob_refs)")}else{const o=jn(r,i.length);t.out(`FAIL ${n}: ${r.fault_count} problem${r.fault_count===1?"":"s"}${o.holds?"":`; ${o.text}`}`)}if(!r.ok)for(const o of r.errors)t.err(za(n,o));return r.ok?0:1}},Yf=1024*1024;function pl(e,t=process.env,n=process.stderr){if(!n.isTTY)return;const s=Number(t.STEPCHAIN_PROGRESS_AFTER_MS??1e3),i=Date.now();let r=0,o=!1;const a=R(e);return{update(c,u){const d=Date.now();if(d-i<(Number.isFinite(s)?s:1e3)||d-r<100)return;r=d,o=!0;const h=u>0?Math.floor(c/u*100):100,f=`: ${(c/Yf).toFixed(0)} of ${(u/Yf).toFixed(0)} MB (${h}%)`,y=Math.max(10,(n.columns||80)-1-f.length),m=a.length>y?`\u2026${a.slice(a.length-y+1)}`:a;n.write(`\r\x1B[K${m}${f}`)},done(){o&&n.write("\r\x1B[K"),o=!1}}}l(pl,"terminalProgress");function Vf(e,t,n){const s=(t.lists.get("public-key")??[]).map(r=>ds(g().resolve(n.cwd,r))),i=pl("verifying",n.env);try{return CA(e,{root:ne(t,n),cwd:n.cwd,...s.length>0?{publicKeys:s}:{},...i===void 0?{}:{onProgress:i.update}})}catch(r){if(i?.done(),r instanceof Ds)for(const o of r.faults)n.err(o);throw r}finally{i?.done()}}l(Vf,"openForDisplay");function $r(e,t,n){let s=0;for(const i of e){const r=Us(i);r===void 0||r.holds||(s=1,n||t.err(`stepchain: ${i.file}: ${r.text}; the verdict is not "verified" (exit 1)`))}return s}l($r,"displayVerdict");const Zk={name:["replay"],usage:"<agent|dir|file|receipt> [--root DIR] [--json] [--limit N] [--public-key FILE]...",summary:"Walk a verified run step by step: interactive on a terminal (n/p, g/G, seq+Enter, /search, Enter expands, f forks, ? keys, q quits), a table of steps otherwise, or --json. A broken chain: exit 1, nothing shown.",description:'The chain is verified from genesis before anything is shown (a receipt: the whole receipt). On a terminal, `f` forks the run at the step shown into a new git worktree after asking (not offered for a receipt), and `?` lists every key. A signed receipt given no --public-key is shown with "signature NOT checked" in the warning colour and exits 1.',options:{...Z,...J,limit:{kind:"value",value:"N",description:"Only the first N steps: the table, the JSON entries, and the steps walked on a terminal."},"public-key":kn},examples:[{run:"stepchain replay agent-1",what:"walk the run on a terminal"},{run:"stepchain replay agent-1 --limit 20 | less",what:"the first 20 steps as a table"},{run:"stepchain replay run.receipt.tar --public-key keys/receipts.pub",what:"a signed receipt, signature checked"}],exitCodes:{0:"shown, everything verified",1:"the chain or receipt does not verify (nothing shown), or a signature was not checked",2:"usage or input error"},async run(e,t){const[n]=q(e,["agent|dir|file|receipt"],"replay"),s=e.values.get("limit"),i=s===void 0?void 0:bt(s,"--limit");if(i===0)throw new w("--limit: give at least 1 step");const r=Vf(n,e,t);if(e.flags.has("json"))return t.json(GA(r,i)),$r([r],t,!0);if(!t.isTTY){for(const u of UA(r,i))t.out(u);return $r([r],t,!1)}const a=r.projectRoot,c=r.kind==="journal"&&a!==void 0;return await QA(r,{...i===void 0?{}:{limit:i},...c?{fork:l(async u=>{const d=await Bo({root:a,sessionId:r.agentId,fromStep:u,env:t.env});return[`forked at step ${u} as ${d.fork_session_id}`,"",`worktree  ${d.fork_worktree}`,`branch    ${d.fork_branch}`,`commit    ${d.fork_commit}${d.restored_from_snapshot?` (the files of step ${u})`:" (the parent's current commit)"}`,...d.warnings.map(h=>`warning: ${h}`),"",`continue it: stepchain append ${d.fork_session_id} --root ${d.fork_worktree} ...`]},"fork")}:{}}),$r([r],t,!1)}};function e1(e,t,n){const s=g().resolve(t.cwd,e);return e.includes("/")||e.includes(g().sep)||/\.(jsonl|tar|tgz|gz)$/i.test(e)?s:be(e)&&(0,p.existsSync)(Be(n,e))?e:(0,p.existsSync)(s)?s:e}l(e1,"targetOf");const t1={name:["report"],usage:"<agent|dir|file|receipt> -o FILE.html [--root DIR] [--public-key FILE]... [--max-steps N [--from SEQ]] [--force] [--json]",summary:"Write a self-contained HTML report that re-verifies the chain in the browser. Written for a broken chain too (it shows the faults); exit 0 intact, 1 not.",description:'The page embeds the journal and re-verifies every step hash in the browser, offline. An existing file is replaced only when it is an earlier stepchain report, or with --force. A signed receipt given no --public-key is reported with "signature NOT checked" and exits 1.',options:{...Z,...J,output:{kind:"value",short:"o",value:"FILE.html",description:"The page to write (required)."},"public-key":kn,force:{kind:"flag",description:"Replace the output file even if it is not an earlier stepchain report."},"max-steps":{kind:"value",value:"N",description:"Embed a window of N steps (default: the last N) instead of the whole journal; the generator still verifies all of it. For runs too large for a browser."},from:{kind:"value",value:"SEQ",description:"Start the --max-steps window at step SEQ."}},examples:[{run:"stepchain report agent-1 -o report.html",what:"a report of a journal"},{run:"stepchain report agent-1 -o last.html --max-steps 1000",what:"the last 1,000 steps of a long run"},{run:"stepchain report run.receipt.tar -o report.html --public-key keys/receipts.pub",what:"of a signed receipt"}],exitCodes:{0:"written; the chain verifies (and a signature, if any, was checked)",1:"written, showing the faults (the chain does not verify, or a signature was not checked)",2:"usage or input error (the output exists and is not a report, without --force)"},async run(e,t){const[n]=q(e,["agent|dir|file|receipt"],"report"),s=e.values.get("output");if(s===void 0)throw new w("report: missing -o FILE.html");const i=g().resolve(t.cwd,s),r=e.values.get("max-steps"),o=e.values.get("from");if(o!==void 0&&r===void 0)throw new w("report: --from needs --max-steps N");if(r!==void 0&&bt(r,"--max-steps")<1)throw new w("--max-steps: expected at least 1 step");const a=(e.lists.get("public-key")??[]).map(b=>ds(g().resolve(t.cwd,b))),c=ne(e,t),u=r===void 0?void 0:bt(r,"--max-steps"),d=o===void 0?void 0:bt(o,"--from"),h=pl("verifying",t.env);let f;try{f=Yh(e1(n,t,c),c,{publicKeys:a,...u===void 0?{}:{maxSteps:u},...d===void 0?{}:{fromStep:d},...h===void 0?{}:{onProgress:h.update}})}finally{h?.done()}let y=null;if(f.kind==="journal")try{y=await N_(st(g().dirname(f.path))??c,f.agentId,t.env)}catch(b){t.err(`stepchain: report: fork tree left out: ${b.message.split(`
`)[0]}`)}const m=R_(f,i,{root:c,force:e.flags.has("force"),forks:y,...u===void 0?{}:{maxSteps:u},...d===void 0?{}:{fromStep:d}});for(const b of m.warnings)t.err(`stepchain: report: warning: ${b}`);if(e.flags.has("json"))t.json({file:m.file,source:m.source,ok:m.ok,head_hash:m.head_hash,steps:m.steps,errors:m.errors,blobs:m.blobs,window:m.window,warnings:m.warnings});else{const b=m.blobs.embedded+m.blobs.skipped>0?`, ${m.blobs.embedded} blob(s) embedded, ${m.blobs.skipped} skipped`:"",_=m.window===null?"":`, lines ${m.window.first_line}-${m.window.last_line} embedded (${m.window.steps} steps)`,k=m.errors.length>0&&m.errors.every(S=>S.kind==="no_trusted_key");t.out(m.ok?`wrote ${m.file}: ${m.steps} step${m.steps===1?"":"s"}, head ${m.head_hash}, chain intact${b}${_}`:k?`wrote ${m.file}: ${m.steps} step${m.steps===1?"":"s"}, head ${m.head_hash}, chain intact, signature NOT checked (signed, but no --public-key was given)${b}${_}`:`wrote ${m.file}: the report shows ${m.errors.length} fault${m.errors.length===1?"":"s"} (the chain does NOT verify)${b}${_}`)}if(!m.ok)for(const b of m.errors)t.err(pi(m.source,b));return m.ok?0:1}};function Xf(e,t,n){const s=e.values.get(t);if(s===void 0)return;let i;try{i=ye(s,n?{objects:"map"}:{})}catch(r){throw r instanceof Ie?new w(`--${t}: not JSON: ${r.message}`):r}if(n?!(i instanceof Map):!G(i))throw new w(`--${t}: expected a JSON object`);return i}l(Xf,"jsonObjectOption");function rn(e,t,n){const s=e.values.get(t);if(s===void 0||s==="")throw new w(`${n}: --${t} is required`);return s}l(rn,"required");const n1={name:["run","capability"],usage:"<run> --adapter NAME --capability observed|declared-blind [--root DIR] [--json]",summary:"Record an adapter's ability to observe provider-side mutations (once per adapter per run).",description:"Recording the same adapter again is a no-op; a conflicting capability for the same adapter is refused.",options:{...Z,...J,adapter:{kind:"value",value:"NAME",description:"The adapter (required), e.g. claude."},capability:{kind:"value",value:"observed|declared-blind",description:"Whether it observes provider-side mutations (required)."}},examples:[{run:"stepchain run capability run-42 --adapter claude --capability observed",what:"claude observes"}],exitCodes:{0:"recorded (or already recorded)",1:"the run journal does not verify, or a conflicting capability",2:"usage or input error"},run(e,t){const[n]=q(e,["run"],"run capability"),s=rn(e,"adapter","run capability"),i=rn(e,"capability","run capability"),{row:r,file:o}=pk(ne(e,t,{create:!0}),n,s,i,{env:t.env});return e.flags.has("json")?t.json({file:o,adapter:s,capability:i,recorded:r!==void 0,index:r?.index??null,event_hash:r?.event_hash??null}):r===void 0?t.out(`${s} is already recorded as ${i} for this run (${o}); nothing written`):t.out(`recorded ${s}: ${i} at index ${r.index} in ${o}`),0}},s1={name:["run","diff"],usage:"<a> <b> [--root DIR] [--json]",summary:"Find where two runs diverge (hashed payloads, never timestamps), attributing provider-side mutations. Exit 0 identical, 1 diverged.",description:"Rows are compared by event type and recomputed payload hash. Where both rows are the same kind of mutation, the payload fields that differ are named (e.g. only `flagged`). Both chains must verify; a broken chain is an error (with --json, the error document lists its faults).",options:{...Z,...J},examples:[{run:"stepchain run diff run-41 run-42",what:"where two runs went apart"}],exitCodes:{0:"identical",1:"diverged, or a chain does not verify",2:"usage or input error"},run(e,t){const[n,s]=q(e,["a","b"],"run diff"),i=ne(e,t),r=tk(ul(n,i),ul(s,i));return e.flags.has("json")?t.json(r):r.diverged?t.out(`diverged at index ${r.index}: ${r.reason_code}${r.mutation_kind===null?"":` (${R(r.mutation_kind)})`}: ${R(r.reason)}`):t.out(R(r.reason)),r.diverged?1:0}};function Zf(e,t){for(const n of t.mutations)e.out(`  [${n.row.index}] ${n.mutation.kind} step ${n.mutation.step_index} ${n.content_address}${n.mutation.flagged?"  FLAGGED":""}`);t.deterministic!==void 0&&t.mutations.length>0&&e.err(`stepchain: warning: ${t.deterministic} is set (deterministic mode): ${t.mutations.length} mutation(s) recorded flagged; \`run verify\` fails closed on them`)}l(Zf,"reportMutations");const i1={name:["run","mutation"],usage:"<run> --agent ID --kind KIND [--detail JSON] [--step-index N] [--key FILE] [--root DIR] [--json]",summary:"Chain one provider-side context mutation into a run journal (content-addressed; flagged in deterministic mode).",description:"The mutation is content-addressed (kind, before and after digests, step) and mirrored into the audit chain. In deterministic mode (STEPCHAIN_DETERMINISTIC_SEED or STEPCHAIN_REPLAY_RUN_ID set) it is recorded flagged, and `run verify` then fails closed.",options:{...Z,...J,agent:{kind:"value",value:"ID",description:"The agent it happened to (required)."},kind:{kind:"value",value:"KIND",description:"The mutation kind (required), e.g. compact_boundary."},detail:{kind:"value",value:"JSON",description:"What the provider reported, a JSON object (pre_*/before_* fields form the before digest)."},"step-index":{kind:"value",value:"N",description:"The step it happened at."},key:{kind:"value",value:"FILE",description:"The audit key file (default from the environment)."}},examples:[{run:`stepchain run mutation run-42 --agent coder --kind compact_boundary --detail '{"pre_tokens":90000}' --step-index 7`,what:"pin a context compaction"}],exitCodes:{0:"recorded",1:"the run journal does not verify (nothing written)",2:"usage or input error"},run(e,t){const[n]=q(e,["run"],"run mutation"),s={agentId:rn(e,"agent","run mutation"),kind:rn(e,"kind","run mutation")},i=Xf(e,"detail",!1);i!==void 0&&(s.detail=i);const r=e.values.get("step-index");r!==void 0&&(s.stepIndex=bt(r,"--step-index"));const o=e.values.get("key"),a=mk(ne(e,t,{create:!0}),n,s,o===void 0?{env:t.env}:{env:t.env,keyPath:g().resolve(t.cwd,o)}),c=a.mutations[0];e.flags.has("json")?(t.json({file:a.file,run:n,agent:s.agentId,index:c.row.index,kind:c.mutation.kind,step_index:c.mutation.step_index,before_digest:c.mutation.before_digest,after_digest:c.mutation.after_digest,content_address:c.content_address,flagged:c.mutation.flagged,journal_head:c.row.event_hash,warnings:a.warnings}),a.deterministic!==void 0&&t.err(`stepchain: warning: ${a.deterministic} is set: mutation recorded flagged`)):(t.out(`recorded provider_state_mutation in ${a.file}`),Zf(t,a),t.out(`  journal head ${c.row.event_hash}`));for(const u of a.warnings)t.err(`stepchain: warning: ${u}`);return 0}},r1={name:["run","ingest"],usage:"<run> --agent ID --claude-stream FILE|- [--key FILE] [--root DIR] [--json]",summary:"Read a Claude Code stream-json transcript: record the adapter as observed and chain every context-mutation signal.",description:"Each compaction or context-mutation signal in the transcript becomes a provider_state_mutation row; the claude adapter is recorded as observed (once per run).",options:{...Z,...J,agent:{kind:"value",value:"ID",description:"The agent the transcript belongs to (required)."},"claude-stream":{kind:"value",value:"FILE|-",description:"The `claude -p --output-format stream-json` transcript (required); `-` reads stdin."},key:{kind:"value",value:"FILE",description:"The audit key file (default from the environment)."}},examples:[{run:'claude -p "fix it" --output-format stream-json --verbose | stepchain run ingest run-42 --agent coder --claude-stream -',what:"ingest a live transcript"}],exitCodes:{0:"ingested",1:"the run journal does not verify (nothing written)",2:"usage or input error (unreadable transcript)"},run(e,t){const[n]=q(e,["run"],"run ingest"),s=rn(e,"agent","run ingest"),i=rn(e,"claude-stream","run ingest"),r=is(i,t,"transcript"),o=e.values.get("key"),a=gk(ne(e,t,{create:!0}),n,s,r,i==="-"?"<stdin>":i,o===void 0?{env:t.env}:{env:t.env,keyPath:g().resolve(t.cwd,o)}),c=a.mutations.at(-1)?.row.event_hash??a.capabilityRow?.event_hash??null;e.flags.has("json")?(t.json({file:a.file,run:n,agent:s,events:a.transcript.events,capability_recorded:a.capabilityRow!==void 0,mutations:a.mutations.map(u=>({index:u.row.index,kind:u.mutation.kind,step_index:u.mutation.step_index,content_address:u.content_address,flagged:u.mutation.flagged})),journal_head:c,warnings:a.warnings}),a.deterministic!==void 0&&a.mutations.length>0&&t.err(`stepchain: warning: ${a.deterministic} is set: mutations recorded flagged`)):(t.out(`ingested ${a.transcript.events} stream-json events into ${a.file}: claude ${a.capabilityRow===void 0?"already recorded as observed":"recorded as observed"}, ${a.mutations.length} context mutation${a.mutations.length===1?"":"s"}`),Zf(t,a),c!==null&&t.out(`  journal head ${c}`));for(const u of a.warnings)t.err(`stepchain: warning: ${u}`);return 0}},o1={name:["run","record"],usage:"<run> --event TYPE [--data JSON] [--root DIR] [--json]",summary:"Append one event to a run journal (.sdd/runs/<run>/journal.jsonl), verifying the chain first.",description:"The run journal is created on the first event; its chain is verified before every append (fail-closed).",options:{...Z,...J,event:{kind:"value",value:"TYPE",description:"The event type (required), e.g. llm_response."},data:{kind:"value",value:"JSON",description:"The payload: a JSON object, key order kept."}},examples:[{run:`stepchain run record run-42 --event llm_response --data '{"text":"ok"}'`,what:"one event"}],exitCodes:{0:"recorded",1:"the run journal does not verify (nothing written)",2:"usage or input error (bad id, bad JSON)"},run(e,t){const[n]=q(e,["run"],"run record"),s=rn(e,"event","run record"),i=Xf(e,"data",!0)??new Map,{row:r,file:o}=hk(ne(e,t,{create:!0}),n,s,i,{env:t.env});return e.flags.has("json")?t.out(Dh(r)):t.out(`recorded ${r.event} at index ${r.index} in ${o}
  event_hash ${r.event_hash}`),0}},a1={name:["run","verify"],usage:"<run|dir|file> [--strict] [--root DIR] [--json]",summary:"Verify a run journal: hash chain, mutation content addresses, flagged mutations, capabilities. Exit 0 holds, 1 not.",description:"<run|dir|file> is a run id (under <root>/.sdd/runs/), a run directory or a journal.jsonl. A flagged mutation (recorded in deterministic mode) fails closed.",options:{...Z,...J,strict:{kind:"flag",description:"Also report blank lines and non-canonical bytes."}},examples:[{run:"stepchain run verify run-42",what:"verify a run journal"}],exitCodes:{0:"the run journal holds",1:"a fault (each printed with its line)",2:"usage or input error"},run(e,t){const[n]=q(e,["run|dir|file"],"run verify"),s=ul(n,ne(e,t)),i=Zw(s,{strict:e.flags.has("strict")});if(e.flags.has("json"))t.json(i);else if(i.ok){const r=i.capabilities.map(o=>R(`${o.adapter}=${o.capability}`)).join(", ")||"none recorded";t.out(`OK ${s}: ${i.count} event${i.count===1?"":"s"}, ${i.mutation_count} pinned mutation${i.mutation_count===1?"":"s"}, capabilities: ${r}, head ${i.head_hash}`)}else{const r=i.divergent_index===null?"":`; chain diverges at index ${i.divergent_index} (expected ${i.expected_hash}, stored ${i.actual_hash})`;t.out(`FAIL ${s}: ${i.fault_count} fault${i.fault_count===1?"":"s"} in ${i.count} rows${r}`)}if(!i.ok)for(const r of e_(s,i))t.err(r);return i.ok?0:1}},l1={name:["show"],usage:"<agent|dir|file|receipt> <seq> [--root DIR] [--json] [--public-key FILE]...",summary:"One step of a verified run in full, with its blobs' sizes and a preview (missing blobs marked).",description:"<seq> is the 0-based step number. The chain is verified from genesis first; a chain that does not verify shows nothing (exit 1).",options:{...Z,...J,"public-key":kn},examples:[{run:"stepchain show agent-1 3",what:"step 3 of agent-1, every field in full"},{run:"stepchain show agent-1 3 --json",what:"the row exactly as stored, with its blobs"}],exitCodes:{0:"shown, everything verified",1:"the chain or receipt does not verify, or a signature was not checked",2:"usage or input error (no such step)"},run(e,t){const[n,s]=q(e,["agent|dir|file|receipt","seq"],"show"),i=bt(s,"show: <seq>"),r=Vf(n,e,t),o=e.flags.has("json");if(o)t.json(zA(r,i));else for(const a of WA(r,i))t.out(a);return $r([r],t,o)}},c1={name:["verify"],usage:"<agent|dir|file> [--root DIR] [--expected-head HEX] [--strict] [--json]",summary:"Verify a per-step journal from genesis: every fault with its line and kind. Exit 0 intact, 1 not.",description:"<agent|dir|file> is an agent id (under <root>/.sdd/runtime/journal/), a journal directory or a .jsonl file. Every fault is printed on stderr as file:line: kind: message (malformed_json, seq_mismatch, prev_hash_mismatch, step_hash_mismatch, head_mismatch, ...).",options:{...Z,...J,"expected-head":{kind:"value",value:"HEX",description:"The head the journal must end at (e.g. recorded elsewhere); another head is a head_mismatch."},strict:{kind:"flag",description:"Also report lines whose bytes are not canonical, and blank lines (non_canonical)."}},examples:[{run:"stepchain verify agent-1",what:"verify agent-1's journal in this project"},{run:"stepchain verify .sdd/runtime/journal/agent-1/000000.jsonl --expected-head 7af96d16...",what:"a file, pinned to a known head"}],exitCodes:{0:"the chain is intact",1:"a fault (each printed with its line)",2:"usage or input error"},run(e,t){const[n]=q(e,["agent|dir|file"],"verify"),s=yd(e,"expected-head"),{file:i}=wn(n,ne(e,t)),r=pl(`verifying ${i}`,t.env);let o;try{o=ro(i,{...s===void 0?{}:{expectedHead:s},strict:e.flags.has("strict"),...r===void 0?{}:{onProgress:r.update}})}finally{r?.done()}if(e.flags.has("json")?t.json({ok:o.ok,head_hash:o.head_hash,steps:o.steps,errors:o.errors,fault_count:o.fault_count,errors_omitted:o.errors_omitted}):o.ok?t.out(`OK ${i}: ${o.steps} step${o.steps===1?"":"s"}, head ${o.head_hash}`):t.out(`FAIL ${i}: ${o.fault_count} fault${o.fault_count===1?"":"s"} in ${o.steps} rows`),!o.ok)for(const a of lo(i,o))t.err(a);return o.ok?0:1}},_e=[Hg,c1,Yk,KA,Xk,Vk,Uk,Gk,Wk,Zk,l1,JA,t1,o1,n1,i1,r1,a1,s1,F_,o0,r0,Kk,zk,lA],ep={0:"done / holds",1:"does not hold (or refused)",2:"usage or input error"};function jt(e,t){const n=[];for(const s of e.split(`
`)){let i="";for(const r of s.split(/ +/).flatMap(o=>K(o)>t?Dt(o,t):[o]))r!==""&&(i===""?i=r:K(i)+1+K(r)<=t?i+=` ${r}`:(n.push(i),i=r));n.push(i)}return n}l(jt,"wrapWords");function d1(e,t,n,s=0){const i=jt(e,Math.max(20,t-n));if(s===0||i.length<=1)return i.map(a=>a===""?"":" ".repeat(n)+a);const r=i[0],o=jt(e.slice(r.length).trimStart(),Math.max(20,t-n-s));return[" ".repeat(n)+r,...o.map(a=>" ".repeat(n+s)+a)]}l(d1,"indented");function u1(e){const t=[];let n="",s=null;for(const i of e)s!==null?(n+=i,i===s&&(s=null)):i==="'"||i==='"'?(s=i,n+=i):i===" "?(n!==""&&t.push(n),n=""):n+=i;return n!==""&&t.push(n),t}l(u1,"shellWords");function h1(e,t,n,s){const i=[];let r="";for(const o of u1(e)){const a=t-n-(i.length===0?0:s)-2;r===""?r=o:K(r)+1+K(o)<=a?r+=` ${o}`:(i.push(r),r=o)}return i.push(r),i.map((o,a)=>`${" ".repeat(n+(a===0?0:s))}${o}${a<i.length-1?" \\":""}`)}l(h1,"exampleLines");function on(e,t,n=2,s=30){const i=Math.min(s,e.reduce((c,[u])=>Math.max(c,K(u)),0)),r=n+i+2,o=Math.max(20,t-r),a=[];for(const[c,u]of e){const d=jt(u,o),h=" ".repeat(n)+c;if(K(c)>i){a.push(h);for(const f of d)a.push(" ".repeat(r)+f)}else{a.push(h+" ".repeat(r-K(h))+(d[0]??""));for(const f of d.slice(1))a.push(" ".repeat(r)+f)}}return a}l(on,"table");const f1=[["-h, --help","Show help: `stepchain help`, `stepchain <command> --help`, `stepchain help <command>`."],["--version","Print the version."]];function ml(e){return new Set(e.filter(t=>t.name.length>1).map(t=>t.name[0]))}l(ml,"groupNames");function tp(e,t){const n=[`stepchain ${Mo}: tamper-evident, replayable AI-agent runs`,"","Usage: stepchain <command> [options]",""];return n.push("Commands:"),n.push(...on(e.map(s=>[s.name.join(" "),s.summary]),t,2,18)),n.push("","Options:"),n.push(...on(f1,t,2,18)),n.push("","Exit codes:"),n.push(...on(Object.entries(ep),t,2,18)),n.push(""),n.push(...jt('Run `stepchain <command> --help` for its options, examples and exit codes. Every command that prints something prints one JSON document with --json, errors included ({"ok": false, "error": {...}}). The project root is found like git finds a repository (see --root).',t)),n.join(`
`)}l(tp,"mainHelp");function np(e,t,n){const s=t.filter(r=>r.name[0]===e&&r.name.length>1),i=[`usage: stepchain ${e} <command> [options]`,"","Commands:"];return i.push(...on(s.map(r=>[r.name.join(" "),r.summary]),n,2,22)),i.push("",...jt(`Run \`stepchain ${e} <command> --help\` for one command's options.`,n)),i.join(`
`)}l(np,"groupHelp");function p1(e){const t=Object.entries(e).map(([n,s])=>{const i=Am(n,s)+(s.kind==="flag"?"":` ${s.value??"VALUE"}`),r=s.kind==="list"?" Repeatable.":"";return[i,`${s.description??""}${r}`.trim()]});return t.push(["-h, --help","Show this help."]),t}l(p1,"optionRows");function sp(e,t,n=[]){const s=`stepchain ${e.name.join(" ")}`,i=d1(`usage: ${s} ${e.usage}`.trimEnd(),t,0,4);if(i.push("",...jt(e.summary,t)),e.description&&i.push("",...jt(e.description,t)),i.push("","Options:",...on(p1(e.options),t,2,28)),n.length>0&&i.push("","Commands:",...on(n.map(r=>[r.name.join(" "),r.summary]),t,2,22)),e.examples&&e.examples.length>0){i.push("","Examples:");for(const r of e.examples)i.push(...jt(r.what,Math.max(20,t-4)).map(o=>`  # ${o}`)),i.push(...h1(r.run,t,2,4))}return i.push("","Exit codes:",...on(Object.entries(e.exitCodes??ep),t,2,4)),i.join(`
`)}l(sp,"commandHelp");function m1(e){const t=Number(e.env.COLUMNS),n=e.columns??(Number.isInteger(t)&&t>0?t:80);return Math.max(30,n)}l(m1,"widthOf");function g1(e){let t;for(const n of _e)n.name.every((s,i)=>e[i]===s)&&(t===void 0||n.name.length>t.name.length)&&(t=n);return t&&{command:t,rest:e.slice(t.name.length)}}l(g1,"findCommand");function ip(e){return _e.filter(t=>t.name.length===e.name.length+1&&e.name.every((n,s)=>t.name[s]===n))}l(ip,"subcommandsOf");function rp(e){const t=ml(_e);if(e.length>=2&&t.has(e[0])){const i=e[0],r=`${i} ${e[1]}`,o=_e.filter(a=>a.name[0]===i&&a.name.length>1).map(a=>a.name.join(" "));return new w(`unknown command ${JSON.stringify(r)}${ci(r,o)} (see \`stepchain ${i} --help\`)`)}const n=e[0]??"",s=[...new Set(_e.map(i=>i.name[0])),"help","version"];return new w(`unknown command ${JSON.stringify(n)}${ci(n,s)} (see \`stepchain help\`)`)}l(rp,"unknownCommand");function y1(e,t){if(e.length===0)return tp(_e,t);const n=_e.find(s=>s.name.length===e.length&&s.name.every((i,r)=>e[r]===i));if(n)return sp(n,t,ip(n));if(e.length===1&&ml(_e).has(e[0]))return np(e[0],_e,t);throw rp(e)}l(y1,"helpFor");function xr(e,t,n){const s=_l(e)??e,i=bl(s);if(n&&t.json(i),s instanceof Ze)return t.err(`stepchain: ${s.message}`),s.exitCode;if(t.err(`stepchain: internal error: ${i.error.message}`),t.env.STEPCHAIN_DEBUG)for(const r of String(s?.stack).split(`
`))t.err(r);return 1}l(xr,"report");async function op(e,t=fc()){const n=bm(t),s=m1(n),i=e[0],r=e.slice(0,e.includes("--")?e.indexOf("--"):e.length).includes("--json");if(i===void 0)return n.out(tp(_e,s)),2;if(i==="--version"||i==="version"||i==="-V")return n.out(Mo),0;if(i==="help"||i==="--help"||i==="-h")try{return n.out(y1(e.slice(1),s)),0}catch(h){return xr(h,n,r)}if(i.startsWith("-")&&i!=="-"){const h=i.replace(/^--?/,"").split("=")[0],y=_e.some(m=>m.options[h]!==void 0||Object.values(m.options).some(b=>b.short===h))?`: options go after the command (\`stepchain <command> ${i.split("=")[0]} ...\`)`:ci(i,["--help","--version"],m=>m);return xr(new w(`unknown option ${i}${y} (see \`stepchain help\`)`),n,r)}const o=g1(e);if(o===void 0){if(ml(_e).has(i)){const f=e[1];if(f===void 0||f==="--help"||f==="-h")return n.out(np(i,_e,s)),f===void 0?2:0}return xr(rp(e.slice(0,2)),n,r)}const{command:a,rest:c}=o;if(vm(c,a.options))return n.out(sp(a,s,ip(a))),0;const u=Em(c,a.options);let d;try{const h=km(c,a.options,a.name.join(" "));d=await a.run(h,n)}catch(h){d=xr(h,n,u||r)}return a.maxExitCode===void 0?d:Math.min(d,a.maxExitCode)}l(op,"runCli"),Mp({source:Dp}),gm();const gl=process.argv.slice(2);let yl;try{yl=fc()}catch(e){if(!(e instanceof Ze))throw e;gl.includes("--json")&&process.stdout.write(`${Vr(bl(e))}
`),process.stderr.write(`stepchain: ${e.message}
`),process.exitCode=gl[0]==="hook"?1:e.exitCode}yl!==void 0&&op(gl,yl).then(e=>{process.exitCode=e}),module.exports=lp})();
