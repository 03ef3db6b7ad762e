#!/usr/bin/env node
/******/ (() => { // webpackBootstrap
/******/ 	var __webpack_modules__ = ({

/***/ 117:
/***/ ((__unused_webpack_module, exports, __nccwpck_require__) => {

"use strict";

function __export(m) {
    for (var p in m) if (!exports.hasOwnProperty(p)) exports[p] = m[p];
}
Object.defineProperty(exports, "__esModule", ({ value: true }));
__export(__nccwpck_require__(972));
//# sourceMappingURL=index.js.map

/***/ }),

/***/ 972:
/***/ (function(__unused_webpack_module, exports, __nccwpck_require__) {

"use strict";

var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", ({ value: true }));
const fs_1 = __nccwpck_require__(896);
const debug_1 = __importDefault(__nccwpck_require__(830));
const log = debug_1.default('@kwsites/file-exists');
function check(path, isFile, isDirectory) {
    log(`checking %s`, path);
    try {
        const stat = fs_1.statSync(path);
        if (stat.isFile() && isFile) {
            log(`[OK] path represents a file`);
            return true;
        }
        if (stat.isDirectory() && isDirectory) {
            log(`[OK] path represents a directory`);
            return true;
        }
        log(`[FAIL] path represents something other than a file or directory`);
        return false;
    }
    catch (e) {
        if (e.code === 'ENOENT') {
            log(`[FAIL] path is not accessible: %o`, e);
            return false;
        }
        log(`[FATAL] %o`, e);
        throw e;
    }
}
/**
 * Synchronous validation of a path existing either as a file or as a directory.
 *
 * @param {string} path The path to check
 * @param {number} type One or both of the exported numeric constants
 */
function exists(path, type = exports.READABLE) {
    return check(path, (type & exports.FILE) > 0, (type & exports.FOLDER) > 0);
}
exports.exists = exists;
/**
 * Constant representing a file
 */
exports.FILE = 1;
/**
 * Constant representing a folder
 */
exports.FOLDER = 2;
/**
 * Constant representing either a file or a folder
 */
exports.READABLE = exports.FILE + exports.FOLDER;
//# sourceMappingURL=index.js.map

/***/ }),

/***/ 997:
/***/ ((__unused_webpack_module, exports) => {

"use strict";
var __webpack_unused_export__;

__webpack_unused_export__ = ({ value: true });
exports.ud = exports.yX = void 0;
/**
 * Creates a new `DeferredPromise`
 *
 * ```typescript
 import {deferred} from '@kwsites/promise-deferred`;
 ```
 */
function deferred() {
    let done;
    let fail;
    let status = 'pending';
    const promise = new Promise((_done, _fail) => {
        done = _done;
        fail = _fail;
    });
    return {
        promise,
        done(result) {
            if (status === 'pending') {
                status = 'resolved';
                done(result);
            }
        },
        fail(error) {
            if (status === 'pending') {
                status = 'rejected';
                fail(error);
            }
        },
        get fulfilled() {
            return status !== 'pending';
        },
        get status() {
            return status;
        },
    };
}
exports.yX = deferred;
/**
 * Alias of the exported `deferred` function, to help consumers wanting to use `deferred` as the
 * local variable name rather than the factory import name, without needing to rename on import.
 *
 * ```typescript
 import {createDeferred} from '@kwsites/promise-deferred`;
 ```
 */
exports.ud = deferred;
/**
 * Default export allows use as:
 *
 * ```typescript
 import deferred from '@kwsites/promise-deferred`;
 ```
 */
__webpack_unused_export__ = deferred;
//# sourceMappingURL=index.js.map

/***/ }),

/***/ 110:
/***/ ((module, exports, __nccwpck_require__) => {

/* eslint-env browser */

/**
 * This is the web browser implementation of `debug()`.
 */

exports.formatArgs = formatArgs;
exports.save = save;
exports.load = load;
exports.useColors = useColors;
exports.storage = localstorage();
exports.destroy = (() => {
	let warned = false;

	return () => {
		if (!warned) {
			warned = true;
			console.warn('Instance method `debug.destroy()` is deprecated and no longer does anything. It will be removed in the next major version of `debug`.');
		}
	};
})();

/**
 * Colors.
 */

exports.colors = [
	'#0000CC',
	'#0000FF',
	'#0033CC',
	'#0033FF',
	'#0066CC',
	'#0066FF',
	'#0099CC',
	'#0099FF',
	'#00CC00',
	'#00CC33',
	'#00CC66',
	'#00CC99',
	'#00CCCC',
	'#00CCFF',
	'#3300CC',
	'#3300FF',
	'#3333CC',
	'#3333FF',
	'#3366CC',
	'#3366FF',
	'#3399CC',
	'#3399FF',
	'#33CC00',
	'#33CC33',
	'#33CC66',
	'#33CC99',
	'#33CCCC',
	'#33CCFF',
	'#6600CC',
	'#6600FF',
	'#6633CC',
	'#6633FF',
	'#66CC00',
	'#66CC33',
	'#9900CC',
	'#9900FF',
	'#9933CC',
	'#9933FF',
	'#99CC00',
	'#99CC33',
	'#CC0000',
	'#CC0033',
	'#CC0066',
	'#CC0099',
	'#CC00CC',
	'#CC00FF',
	'#CC3300',
	'#CC3333',
	'#CC3366',
	'#CC3399',
	'#CC33CC',
	'#CC33FF',
	'#CC6600',
	'#CC6633',
	'#CC9900',
	'#CC9933',
	'#CCCC00',
	'#CCCC33',
	'#FF0000',
	'#FF0033',
	'#FF0066',
	'#FF0099',
	'#FF00CC',
	'#FF00FF',
	'#FF3300',
	'#FF3333',
	'#FF3366',
	'#FF3399',
	'#FF33CC',
	'#FF33FF',
	'#FF6600',
	'#FF6633',
	'#FF9900',
	'#FF9933',
	'#FFCC00',
	'#FFCC33'
];

/**
 * Currently only WebKit-based Web Inspectors, Firefox >= v31,
 * and the Firebug extension (any Firefox version) are known
 * to support "%c" CSS customizations.
 *
 * TODO: add a `localStorage` variable to explicitly enable/disable colors
 */

// eslint-disable-next-line complexity
function useColors() {
	// NB: In an Electron preload script, document will be defined but not fully
	// initialized. Since we know we're in Chrome, we'll just detect this case
	// explicitly
	if (typeof window !== 'undefined' && window.process && (window.process.type === 'renderer' || window.process.__nwjs)) {
		return true;
	}

	// Internet Explorer and Edge do not support colors.
	if (typeof navigator !== 'undefined' && navigator.userAgent && navigator.userAgent.toLowerCase().match(/(edge|trident)\/(\d+)/)) {
		return false;
	}

	let m;

	// Is webkit? http://stackoverflow.com/a/16459606/376773
	// document is undefined in react-native: https://github.com/facebook/react-native/pull/1632
	// eslint-disable-next-line no-return-assign
	return (typeof document !== 'undefined' && document.documentElement && document.documentElement.style && document.documentElement.style.WebkitAppearance) ||
		// Is firebug? http://stackoverflow.com/a/398120/376773
		(typeof window !== 'undefined' && window.console && (window.console.firebug || (window.console.exception && window.console.table))) ||
		// Is firefox >= v31?
		// https://developer.mozilla.org/en-US/docs/Tools/Web_Console#Styling_messages
		(typeof navigator !== 'undefined' && navigator.userAgent && (m = navigator.userAgent.toLowerCase().match(/firefox\/(\d+)/)) && parseInt(m[1], 10) >= 31) ||
		// Double check webkit in userAgent just in case we are in a worker
		(typeof navigator !== 'undefined' && navigator.userAgent && navigator.userAgent.toLowerCase().match(/applewebkit\/(\d+)/));
}

/**
 * Colorize log arguments if enabled.
 *
 * @api public
 */

function formatArgs(args) {
	args[0] = (this.useColors ? '%c' : '') +
		this.namespace +
		(this.useColors ? ' %c' : ' ') +
		args[0] +
		(this.useColors ? '%c ' : ' ') +
		'+' + module.exports.humanize(this.diff);

	if (!this.useColors) {
		return;
	}

	const c = 'color: ' + this.color;
	args.splice(1, 0, c, 'color: inherit');

	// The final "%c" is somewhat tricky, because there could be other
	// arguments passed either before or after the %c, so we need to
	// figure out the correct index to insert the CSS into
	let index = 0;
	let lastC = 0;
	args[0].replace(/%[a-zA-Z%]/g, match => {
		if (match === '%%') {
			return;
		}
		index++;
		if (match === '%c') {
			// We only are interested in the *last* %c
			// (the user may have provided their own)
			lastC = index;
		}
	});

	args.splice(lastC, 0, c);
}

/**
 * Invokes `console.debug()` when available.
 * No-op when `console.debug` is not a "function".
 * If `console.debug` is not available, falls back
 * to `console.log`.
 *
 * @api public
 */
exports.log = console.debug || console.log || (() => {});

/**
 * Save `namespaces`.
 *
 * @param {String} namespaces
 * @api private
 */
function save(namespaces) {
	try {
		if (namespaces) {
			exports.storage.setItem('debug', namespaces);
		} else {
			exports.storage.removeItem('debug');
		}
	} catch (error) {
		// Swallow
		// XXX (@Qix-) should we be logging these?
	}
}

/**
 * Load `namespaces`.
 *
 * @return {String} returns the previously persisted debug modes
 * @api private
 */
function load() {
	let r;
	try {
		r = exports.storage.getItem('debug') || exports.storage.getItem('DEBUG') ;
	} catch (error) {
		// Swallow
		// XXX (@Qix-) should we be logging these?
	}

	// If debug isn't set in LS, and we're in Electron, try to load $DEBUG
	if (!r && typeof process !== 'undefined' && 'env' in process) {
		r = process.env.DEBUG;
	}

	return r;
}

/**
 * Localstorage attempts to return the localstorage.
 *
 * This is necessary because safari throws
 * when a user disables cookies/localstorage
 * and you attempt to access it.
 *
 * @return {LocalStorage}
 * @api private
 */

function localstorage() {
	try {
		// TVMLKit (Apple TV JS Runtime) does not have a window object, just localStorage in the global context
		// The Browser also has localStorage in the global context.
		return localStorage;
	} catch (error) {
		// Swallow
		// XXX (@Qix-) should we be logging these?
	}
}

module.exports = __nccwpck_require__(897)(exports);

const {formatters} = module.exports;

/**
 * Map %j to `JSON.stringify()`, since no Web Inspectors do that by default.
 */

formatters.j = function (v) {
	try {
		return JSON.stringify(v);
	} catch (error) {
		return '[UnexpectedJSONParseError]: ' + error.message;
	}
};


/***/ }),

/***/ 897:
/***/ ((module, __unused_webpack_exports, __nccwpck_require__) => {


/**
 * This is the common logic for both the Node.js and web browser
 * implementations of `debug()`.
 */

function setup(env) {
	createDebug.debug = createDebug;
	createDebug.default = createDebug;
	createDebug.coerce = coerce;
	createDebug.disable = disable;
	createDebug.enable = enable;
	createDebug.enabled = enabled;
	createDebug.humanize = __nccwpck_require__(744);
	createDebug.destroy = destroy;

	Object.keys(env).forEach(key => {
		createDebug[key] = env[key];
	});

	/**
	* The currently active debug mode names, and names to skip.
	*/

	createDebug.names = [];
	createDebug.skips = [];

	/**
	* Map of special "%n" handling functions, for the debug "format" argument.
	*
	* Valid key names are a single, lower or upper-case letter, i.e. "n" and "N".
	*/
	createDebug.formatters = {};

	/**
	* Selects a color for a debug namespace
	* @param {String} namespace The namespace string for the debug instance to be colored
	* @return {Number|String} An ANSI color code for the given namespace
	* @api private
	*/
	function selectColor(namespace) {
		let hash = 0;

		for (let i = 0; i < namespace.length; i++) {
			hash = ((hash << 5) - hash) + namespace.charCodeAt(i);
			hash |= 0; // Convert to 32bit integer
		}

		return createDebug.colors[Math.abs(hash) % createDebug.colors.length];
	}
	createDebug.selectColor = selectColor;

	/**
	* Create a debugger with the given `namespace`.
	*
	* @param {String} namespace
	* @return {Function}
	* @api public
	*/
	function createDebug(namespace) {
		let prevTime;
		let enableOverride = null;
		let namespacesCache;
		let enabledCache;

		function debug(...args) {
			// Disabled?
			if (!debug.enabled) {
				return;
			}

			const self = debug;

			// Set `diff` timestamp
			const curr = Number(new Date());
			const ms = curr - (prevTime || curr);
			self.diff = ms;
			self.prev = prevTime;
			self.curr = curr;
			prevTime = curr;

			args[0] = createDebug.coerce(args[0]);

			if (typeof args[0] !== 'string') {
				// Anything else let's inspect with %O
				args.unshift('%O');
			}

			// Apply any `formatters` transformations
			let index = 0;
			args[0] = args[0].replace(/%([a-zA-Z%])/g, (match, format) => {
				// If we encounter an escaped % then don't increase the array index
				if (match === '%%') {
					return '%';
				}
				index++;
				const formatter = createDebug.formatters[format];
				if (typeof formatter === 'function') {
					const val = args[index];
					match = formatter.call(self, val);

					// Now we need to remove `args[index]` since it's inlined in the `format`
					args.splice(index, 1);
					index--;
				}
				return match;
			});

			// Apply env-specific formatting (colors, etc.)
			createDebug.formatArgs.call(self, args);

			const logFn = self.log || createDebug.log;
			logFn.apply(self, args);
		}

		debug.namespace = namespace;
		debug.useColors = createDebug.useColors();
		debug.color = createDebug.selectColor(namespace);
		debug.extend = extend;
		debug.destroy = createDebug.destroy; // XXX Temporary. Will be removed in the next major release.

		Object.defineProperty(debug, 'enabled', {
			enumerable: true,
			configurable: false,
			get: () => {
				if (enableOverride !== null) {
					return enableOverride;
				}
				if (namespacesCache !== createDebug.namespaces) {
					namespacesCache = createDebug.namespaces;
					enabledCache = createDebug.enabled(namespace);
				}

				return enabledCache;
			},
			set: v => {
				enableOverride = v;
			}
		});

		// Env-specific initialization logic for debug instances
		if (typeof createDebug.init === 'function') {
			createDebug.init(debug);
		}

		return debug;
	}

	function extend(namespace, delimiter) {
		const newDebug = createDebug(this.namespace + (typeof delimiter === 'undefined' ? ':' : delimiter) + namespace);
		newDebug.log = this.log;
		return newDebug;
	}

	/**
	* Enables a debug mode by namespaces. This can include modes
	* separated by a colon and wildcards.
	*
	* @param {String} namespaces
	* @api public
	*/
	function enable(namespaces) {
		createDebug.save(namespaces);
		createDebug.namespaces = namespaces;

		createDebug.names = [];
		createDebug.skips = [];

		const split = (typeof namespaces === 'string' ? namespaces : '')
			.trim()
			.replace(/\s+/g, ',')
			.split(',')
			.filter(Boolean);

		for (const ns of split) {
			if (ns[0] === '-') {
				createDebug.skips.push(ns.slice(1));
			} else {
				createDebug.names.push(ns);
			}
		}
	}

	/**
	 * Checks if the given string matches a namespace template, honoring
	 * asterisks as wildcards.
	 *
	 * @param {String} search
	 * @param {String} template
	 * @return {Boolean}
	 */
	function matchesTemplate(search, template) {
		let searchIndex = 0;
		let templateIndex = 0;
		let starIndex = -1;
		let matchIndex = 0;

		while (searchIndex < search.length) {
			if (templateIndex < template.length && (template[templateIndex] === search[searchIndex] || template[templateIndex] === '*')) {
				// Match character or proceed with wildcard
				if (template[templateIndex] === '*') {
					starIndex = templateIndex;
					matchIndex = searchIndex;
					templateIndex++; // Skip the '*'
				} else {
					searchIndex++;
					templateIndex++;
				}
			} else if (starIndex !== -1) { // eslint-disable-line no-negated-condition
				// Backtrack to the last '*' and try to match more characters
				templateIndex = starIndex + 1;
				matchIndex++;
				searchIndex = matchIndex;
			} else {
				return false; // No match
			}
		}

		// Handle trailing '*' in template
		while (templateIndex < template.length && template[templateIndex] === '*') {
			templateIndex++;
		}

		return templateIndex === template.length;
	}

	/**
	* Disable debug output.
	*
	* @return {String} namespaces
	* @api public
	*/
	function disable() {
		const namespaces = [
			...createDebug.names,
			...createDebug.skips.map(namespace => '-' + namespace)
		].join(',');
		createDebug.enable('');
		return namespaces;
	}

	/**
	* Returns true if the given mode name is enabled, false otherwise.
	*
	* @param {String} name
	* @return {Boolean}
	* @api public
	*/
	function enabled(name) {
		for (const skip of createDebug.skips) {
			if (matchesTemplate(name, skip)) {
				return false;
			}
		}

		for (const ns of createDebug.names) {
			if (matchesTemplate(name, ns)) {
				return true;
			}
		}

		return false;
	}

	/**
	* Coerce `val`.
	*
	* @param {Mixed} val
	* @return {Mixed}
	* @api private
	*/
	function coerce(val) {
		if (val instanceof Error) {
			return val.stack || val.message;
		}
		return val;
	}

	/**
	* XXX DO NOT USE. This is a temporary stub function.
	* XXX It WILL be removed in the next major release.
	*/
	function destroy() {
		console.warn('Instance method `debug.destroy()` is deprecated and no longer does anything. It will be removed in the next major version of `debug`.');
	}

	createDebug.enable(createDebug.load());

	return createDebug;
}

module.exports = setup;


/***/ }),

/***/ 830:
/***/ ((module, __unused_webpack_exports, __nccwpck_require__) => {

/**
 * Detect Electron renderer / nwjs process, which is node, but we should
 * treat as a browser.
 */

if (typeof process === 'undefined' || process.type === 'renderer' || process.browser === true || process.__nwjs) {
	module.exports = __nccwpck_require__(110);
} else {
	module.exports = __nccwpck_require__(108);
}


/***/ }),

/***/ 108:
/***/ ((module, exports, __nccwpck_require__) => {

/**
 * Module dependencies.
 */

const tty = __nccwpck_require__(18);
const util = __nccwpck_require__(23);

/**
 * This is the Node.js implementation of `debug()`.
 */

exports.init = init;
exports.log = log;
exports.formatArgs = formatArgs;
exports.save = save;
exports.load = load;
exports.useColors = useColors;
exports.destroy = util.deprecate(
	() => {},
	'Instance method `debug.destroy()` is deprecated and no longer does anything. It will be removed in the next major version of `debug`.'
);

/**
 * Colors.
 */

exports.colors = [6, 2, 3, 4, 5, 1];

try {
	// Optional dependency (as in, doesn't need to be installed, NOT like optionalDependencies in package.json)
	// eslint-disable-next-line import/no-extraneous-dependencies
	const supportsColor = __nccwpck_require__(450);

	if (supportsColor && (supportsColor.stderr || supportsColor).level >= 2) {
		exports.colors = [
			20,
			21,
			26,
			27,
			32,
			33,
			38,
			39,
			40,
			41,
			42,
			43,
			44,
			45,
			56,
			57,
			62,
			63,
			68,
			69,
			74,
			75,
			76,
			77,
			78,
			79,
			80,
			81,
			92,
			93,
			98,
			99,
			112,
			113,
			128,
			129,
			134,
			135,
			148,
			149,
			160,
			161,
			162,
			163,
			164,
			165,
			166,
			167,
			168,
			169,
			170,
			171,
			172,
			173,
			178,
			179,
			184,
			185,
			196,
			197,
			198,
			199,
			200,
			201,
			202,
			203,
			204,
			205,
			206,
			207,
			208,
			209,
			214,
			215,
			220,
			221
		];
	}
} catch (error) {
	// Swallow - we only care if `supports-color` is available; it doesn't have to be.
}

/**
 * Build up the default `inspectOpts` object from the environment variables.
 *
 *   $ DEBUG_COLORS=no DEBUG_DEPTH=10 DEBUG_SHOW_HIDDEN=enabled node script.js
 */

exports.inspectOpts = Object.keys(process.env).filter(key => {
	return /^debug_/i.test(key);
}).reduce((obj, key) => {
	// Camel-case
	const prop = key
		.substring(6)
		.toLowerCase()
		.replace(/_([a-z])/g, (_, k) => {
			return k.toUpperCase();
		});

	// Coerce string value into JS value
	let val = process.env[key];
	if (/^(yes|on|true|enabled)$/i.test(val)) {
		val = true;
	} else if (/^(no|off|false|disabled)$/i.test(val)) {
		val = false;
	} else if (val === 'null') {
		val = null;
	} else {
		val = Number(val);
	}

	obj[prop] = val;
	return obj;
}, {});

/**
 * Is stdout a TTY? Colored output is enabled when `true`.
 */

function useColors() {
	return 'colors' in exports.inspectOpts ?
		Boolean(exports.inspectOpts.colors) :
		tty.isatty(process.stderr.fd);
}

/**
 * Adds ANSI color escape codes if enabled.
 *
 * @api public
 */

function formatArgs(args) {
	const {namespace: name, useColors} = this;

	if (useColors) {
		const c = this.color;
		const colorCode = '\u001B[3' + (c < 8 ? c : '8;5;' + c);
		const prefix = `  ${colorCode};1m${name} \u001B[0m`;

		args[0] = prefix + args[0].split('\n').join('\n' + prefix);
		args.push(colorCode + 'm+' + module.exports.humanize(this.diff) + '\u001B[0m');
	} else {
		args[0] = getDate() + name + ' ' + args[0];
	}
}

function getDate() {
	if (exports.inspectOpts.hideDate) {
		return '';
	}
	return new Date().toISOString() + ' ';
}

/**
 * Invokes `util.formatWithOptions()` with the specified arguments and writes to stderr.
 */

function log(...args) {
	return process.stderr.write(util.formatWithOptions(exports.inspectOpts, ...args) + '\n');
}

/**
 * Save `namespaces`.
 *
 * @param {String} namespaces
 * @api private
 */
function save(namespaces) {
	if (namespaces) {
		process.env.DEBUG = namespaces;
	} else {
		// If you set a process.env field to null or undefined, it gets cast to the
		// string 'null' or 'undefined'. Just delete instead.
		delete process.env.DEBUG;
	}
}

/**
 * Load `namespaces`.
 *
 * @return {String} returns the previously persisted debug modes
 * @api private
 */

function load() {
	return process.env.DEBUG;
}

/**
 * Init logic for `debug` instances.
 *
 * Create a new `inspectOpts` object in case `useColors` is set
 * differently for a particular `debug` instance.
 */

function init(debug) {
	debug.inspectOpts = {};

	const keys = Object.keys(exports.inspectOpts);
	for (let i = 0; i < keys.length; i++) {
		debug.inspectOpts[keys[i]] = exports.inspectOpts[keys[i]];
	}
}

module.exports = __nccwpck_require__(897)(exports);

const {formatters} = module.exports;

/**
 * Map %o to `util.inspect()`, all on a single line.
 */

formatters.o = function (v) {
	this.inspectOpts.colors = this.useColors;
	return util.inspect(v, this.inspectOpts)
		.split('\n')
		.map(str => str.trim())
		.join(' ');
};

/**
 * Map %O to `util.inspect()`, allowing multiple lines if needed.
 */

formatters.O = function (v) {
	this.inspectOpts.colors = this.useColors;
	return util.inspect(v, this.inspectOpts);
};


/***/ }),

/***/ 813:
/***/ ((module) => {

"use strict";


module.exports = (flag, argv = process.argv) => {
	const prefix = flag.startsWith('-') ? '' : (flag.length === 1 ? '-' : '--');
	const position = argv.indexOf(prefix + flag);
	const terminatorPosition = argv.indexOf('--');
	return position !== -1 && (terminatorPosition === -1 || position < terminatorPosition);
};


/***/ }),

/***/ 744:
/***/ ((module) => {

/**
 * Helpers.
 */

var s = 1000;
var m = s * 60;
var h = m * 60;
var d = h * 24;
var w = d * 7;
var y = d * 365.25;

/**
 * Parse or format the given `val`.
 *
 * Options:
 *
 *  - `long` verbose formatting [false]
 *
 * @param {String|Number} val
 * @param {Object} [options]
 * @throws {Error} throw an error if val is not a non-empty string or a number
 * @return {String|Number}
 * @api public
 */

module.exports = function (val, options) {
  options = options || {};
  var type = typeof val;
  if (type === 'string' && val.length > 0) {
    return parse(val);
  } else if (type === 'number' && isFinite(val)) {
    return options.long ? fmtLong(val) : fmtShort(val);
  }
  throw new Error(
    'val is not a non-empty string or a valid number. val=' +
      JSON.stringify(val)
  );
};

/**
 * Parse the given `str` and return milliseconds.
 *
 * @param {String} str
 * @return {Number}
 * @api private
 */

function parse(str) {
  str = String(str);
  if (str.length > 100) {
    return;
  }
  var match = /^(-?(?:\d+)?\.?\d+) *(milliseconds?|msecs?|ms|seconds?|secs?|s|minutes?|mins?|m|hours?|hrs?|h|days?|d|weeks?|w|years?|yrs?|y)?$/i.exec(
    str
  );
  if (!match) {
    return;
  }
  var n = parseFloat(match[1]);
  var type = (match[2] || 'ms').toLowerCase();
  switch (type) {
    case 'years':
    case 'year':
    case 'yrs':
    case 'yr':
    case 'y':
      return n * y;
    case 'weeks':
    case 'week':
    case 'w':
      return n * w;
    case 'days':
    case 'day':
    case 'd':
      return n * d;
    case 'hours':
    case 'hour':
    case 'hrs':
    case 'hr':
    case 'h':
      return n * h;
    case 'minutes':
    case 'minute':
    case 'mins':
    case 'min':
    case 'm':
      return n * m;
    case 'seconds':
    case 'second':
    case 'secs':
    case 'sec':
    case 's':
      return n * s;
    case 'milliseconds':
    case 'millisecond':
    case 'msecs':
    case 'msec':
    case 'ms':
      return n;
    default:
      return undefined;
  }
}

/**
 * Short format for `ms`.
 *
 * @param {Number} ms
 * @return {String}
 * @api private
 */

function fmtShort(ms) {
  var msAbs = Math.abs(ms);
  if (msAbs >= d) {
    return Math.round(ms / d) + 'd';
  }
  if (msAbs >= h) {
    return Math.round(ms / h) + 'h';
  }
  if (msAbs >= m) {
    return Math.round(ms / m) + 'm';
  }
  if (msAbs >= s) {
    return Math.round(ms / s) + 's';
  }
  return ms + 'ms';
}

/**
 * Long format for `ms`.
 *
 * @param {Number} ms
 * @return {String}
 * @api private
 */

function fmtLong(ms) {
  var msAbs = Math.abs(ms);
  if (msAbs >= d) {
    return plural(ms, msAbs, d, 'day');
  }
  if (msAbs >= h) {
    return plural(ms, msAbs, h, 'hour');
  }
  if (msAbs >= m) {
    return plural(ms, msAbs, m, 'minute');
  }
  if (msAbs >= s) {
    return plural(ms, msAbs, s, 'second');
  }
  return ms + ' ms';
}

/**
 * Pluralization helper.
 */

function plural(ms, msAbs, n, name) {
  var isPlural = msAbs >= n * 1.5;
  return Math.round(ms / n) + ' ' + name + (isPlural ? 's' : '');
}


/***/ }),

/***/ 450:
/***/ ((module, __unused_webpack_exports, __nccwpck_require__) => {

"use strict";

const os = __nccwpck_require__(857);
const tty = __nccwpck_require__(18);
const hasFlag = __nccwpck_require__(813);

const {env} = process;

let forceColor;
if (hasFlag('no-color') ||
	hasFlag('no-colors') ||
	hasFlag('color=false') ||
	hasFlag('color=never')) {
	forceColor = 0;
} else if (hasFlag('color') ||
	hasFlag('colors') ||
	hasFlag('color=true') ||
	hasFlag('color=always')) {
	forceColor = 1;
}

if ('FORCE_COLOR' in env) {
	if (env.FORCE_COLOR === 'true') {
		forceColor = 1;
	} else if (env.FORCE_COLOR === 'false') {
		forceColor = 0;
	} else {
		forceColor = env.FORCE_COLOR.length === 0 ? 1 : Math.min(parseInt(env.FORCE_COLOR, 10), 3);
	}
}

function translateLevel(level) {
	if (level === 0) {
		return false;
	}

	return {
		level,
		hasBasic: true,
		has256: level >= 2,
		has16m: level >= 3
	};
}

function supportsColor(haveStream, streamIsTTY) {
	if (forceColor === 0) {
		return 0;
	}

	if (hasFlag('color=16m') ||
		hasFlag('color=full') ||
		hasFlag('color=truecolor')) {
		return 3;
	}

	if (hasFlag('color=256')) {
		return 2;
	}

	if (haveStream && !streamIsTTY && forceColor === undefined) {
		return 0;
	}

	const min = forceColor || 0;

	if (env.TERM === 'dumb') {
		return min;
	}

	if (process.platform === 'win32') {
		// Windows 10 build 10586 is the first Windows release that supports 256 colors.
		// Windows 10 build 14931 is the first release that supports 16m/TrueColor.
		const osRelease = os.release().split('.');
		if (
			Number(osRelease[0]) >= 10 &&
			Number(osRelease[2]) >= 10586
		) {
			return Number(osRelease[2]) >= 14931 ? 3 : 2;
		}

		return 1;
	}

	if ('CI' in env) {
		if (['TRAVIS', 'CIRCLECI', 'APPVEYOR', 'GITLAB_CI', 'GITHUB_ACTIONS', 'BUILDKITE'].some(sign => sign in env) || env.CI_NAME === 'codeship') {
			return 1;
		}

		return min;
	}

	if ('TEAMCITY_VERSION' in env) {
		return /^(9\.(0*[1-9]\d*)\.|\d{2,}\.)/.test(env.TEAMCITY_VERSION) ? 1 : 0;
	}

	if (env.COLORTERM === 'truecolor') {
		return 3;
	}

	if ('TERM_PROGRAM' in env) {
		const version = parseInt((env.TERM_PROGRAM_VERSION || '').split('.')[0], 10);

		switch (env.TERM_PROGRAM) {
			case 'iTerm.app':
				return version >= 3 ? 3 : 2;
			case 'Apple_Terminal':
				return 2;
			// No default
		}
	}

	if (/-256(color)?$/i.test(env.TERM)) {
		return 2;
	}

	if (/^screen|^xterm|^vt100|^vt220|^rxvt|color|ansi|cygwin|linux/i.test(env.TERM)) {
		return 1;
	}

	if ('COLORTERM' in env) {
		return 1;
	}

	return min;
}

function getSupportLevel(stream) {
	const level = supportsColor(stream, stream && stream.isTTY);
	return translateLevel(level);
}

module.exports = {
	supportsColor: getSupportLevel,
	stdout: translateLevel(supportsColor(true, tty.isatty(1))),
	stderr: translateLevel(supportsColor(true, tty.isatty(2)))
};


/***/ }),

/***/ 896:
/***/ ((module) => {

"use strict";
module.exports = require("fs");

/***/ }),

/***/ 857:
/***/ ((module) => {

"use strict";
module.exports = require("os");

/***/ }),

/***/ 18:
/***/ ((module) => {

"use strict";
module.exports = require("tty");

/***/ }),

/***/ 23:
/***/ ((module) => {

"use strict";
module.exports = require("util");

/***/ })

/******/ 	});
/************************************************************************/
/******/ 	// The module cache
/******/ 	var __webpack_module_cache__ = {};
/******/ 	
/******/ 	// The require function
/******/ 	function __nccwpck_require__(moduleId) {
/******/ 		// Check if module is in cache
/******/ 		var cachedModule = __webpack_module_cache__[moduleId];
/******/ 		if (cachedModule !== undefined) {
/******/ 			return cachedModule.exports;
/******/ 		}
/******/ 		// Create a new module (and put it into the cache)
/******/ 		var module = __webpack_module_cache__[moduleId] = {
/******/ 			// no module.id needed
/******/ 			// no module.loaded needed
/******/ 			exports: {}
/******/ 		};
/******/ 	
/******/ 		// Execute the module function
/******/ 		var threw = true;
/******/ 		try {
/******/ 			__webpack_modules__[moduleId].call(module.exports, module, module.exports, __nccwpck_require__);
/******/ 			threw = false;
/******/ 		} finally {
/******/ 			if(threw) delete __webpack_module_cache__[moduleId];
/******/ 		}
/******/ 	
/******/ 		// Return the exports of the module
/******/ 		return module.exports;
/******/ 	}
/******/ 	
/************************************************************************/
/******/ 	/* webpack/runtime/asset-relocator-loader */
/******/ 	if (typeof __nccwpck_require__ !== 'undefined') __nccwpck_require__.ab = __dirname + "/";
/******/ 	
/******/ 	/* webpack/runtime/compat get default export */
/******/ 	(() => {
/******/ 		// getDefaultExport function for compatibility with non-harmony modules
/******/ 		__nccwpck_require__.n = (module) => {
/******/ 			var getter = module && module.__esModule ?
/******/ 				() => (module['default']) :
/******/ 				() => (module);
/******/ 			__nccwpck_require__.d(getter, { a: getter });
/******/ 			return getter;
/******/ 		};
/******/ 	})();
/******/ 	
/******/ 	/* webpack/runtime/create fake namespace object */
/******/ 	(() => {
/******/ 		var getProto = Object.getPrototypeOf ? (obj) => (Object.getPrototypeOf(obj)) : (obj) => (obj.__proto__);
/******/ 		var leafPrototypes;
/******/ 		// create a fake namespace object
/******/ 		// mode & 1: value is a module id, require it
/******/ 		// mode & 2: merge all properties of value into the ns
/******/ 		// mode & 4: return value when already ns object
/******/ 		// mode & 16: return value when it's Promise-like
/******/ 		// mode & 8|1: behave like require
/******/ 		__nccwpck_require__.t = function(value, mode) {
/******/ 			if(mode & 1) value = this(value);
/******/ 			if(mode & 8) return value;
/******/ 			if(typeof value === 'object' && value) {
/******/ 				if((mode & 4) && value.__esModule) return value;
/******/ 				if((mode & 16) && typeof value.then === 'function') return value;
/******/ 			}
/******/ 			var ns = Object.create(null);
/******/ 			__nccwpck_require__.r(ns);
/******/ 			var def = {};
/******/ 			leafPrototypes = leafPrototypes || [null, getProto({}), getProto([]), getProto(getProto)];
/******/ 			for(var current = mode & 2 && value; typeof current == 'object' && !~leafPrototypes.indexOf(current); current = getProto(current)) {
/******/ 				Object.getOwnPropertyNames(current).forEach((key) => (def[key] = () => (value[key])));
/******/ 			}
/******/ 			def['default'] = () => (value);
/******/ 			__nccwpck_require__.d(ns, def);
/******/ 			return ns;
/******/ 		};
/******/ 	})();
/******/ 	
/******/ 	/* webpack/runtime/define property getters */
/******/ 	(() => {
/******/ 		// define getter functions for harmony exports
/******/ 		__nccwpck_require__.d = (exports, definition) => {
/******/ 			for(var key in definition) {
/******/ 				if(__nccwpck_require__.o(definition, key) && !__nccwpck_require__.o(exports, key)) {
/******/ 					Object.defineProperty(exports, key, { enumerable: true, get: definition[key] });
/******/ 				}
/******/ 			}
/******/ 		};
/******/ 	})();
/******/ 	
/******/ 	/* webpack/runtime/hasOwnProperty shorthand */
/******/ 	(() => {
/******/ 		__nccwpck_require__.o = (obj, prop) => (Object.prototype.hasOwnProperty.call(obj, prop))
/******/ 	})();
/******/ 	
/******/ 	/* webpack/runtime/make namespace object */
/******/ 	(() => {
/******/ 		// define __esModule on exports
/******/ 		__nccwpck_require__.r = (exports) => {
/******/ 			if(typeof Symbol !== 'undefined' && Symbol.toStringTag) {
/******/ 				Object.defineProperty(exports, Symbol.toStringTag, { value: 'Module' });
/******/ 			}
/******/ 			Object.defineProperty(exports, '__esModule', { value: true });
/******/ 		};
/******/ 	})();
/******/ 	
/************************************************************************/
var __webpack_exports__ = {};
// This entry need to be wrapped in an IIFE because it need to be in strict mode.
(() => {
"use strict";

;// CONCATENATED MODULE: external "node:worker_threads"
const external_node_worker_threads_namespaceObject = require("node:worker_threads");
;// CONCATENATED MODULE: external "node:fs"
const external_node_fs_namespaceObject = require("node:fs");
;// CONCATENATED MODULE: external "node:os"
const external_node_os_namespaceObject = require("node:os");
;// CONCATENATED MODULE: external "node:crypto"
const external_node_crypto_namespaceObject = require("node:crypto");
;// CONCATENATED MODULE: ./src/util/hash.ts

const ZERO_HASH = '0'.repeat(64);
const HEX64 = /^[0-9a-f]{64}$/;
function sha256Hex(data) {
    return (0,external_node_crypto_namespaceObject.createHash)('sha256').update(data).digest('hex');
}
/** A lowercase 64-digit SHA-256 hex string. */
function isSha256Hex(s) {
    return typeof s === 'string' && HEX64.test(s);
}

;// CONCATENATED MODULE: ./src/journal/chain.ts

/** The shared "no faults" result (most rows): not allocated per row. */
const NO_FAULTS = Object.freeze([]);
// Hashes in full: a fault message is evidence, and JSON output never carries a cut hash.
const chain_short = (h) => h;
/**
 * The chain rules of docs/format.md §2, fed one well-formed row at a time. The expected seq
 * resynchronises on the row's own seq, and the chain follows the *stored*
 * step_hash, so one edit is reported once rather than at every later line.
 */
class ChainChecker {
    expectedSeq = 0;
    prevHash = ZERO_HASH;
    steps = 0;
    check(line, row, computedHash) {
        return this.finish(line, row, computedHash, this.link(line, row));
    }
    /** The seq and prev_hash checks of a row against the expected position (no state change). */
    link(line, row) {
        if (row.seq === this.expectedSeq && row.prev_hash === this.prevHash)
            return NO_FAULTS;
        const faults = [];
        if (row.seq !== this.expectedSeq) {
            faults.push({ line, kind: 'seq_mismatch', message: `seq ${row.seq}, expected ${this.expectedSeq}` });
        }
        if (row.prev_hash !== this.prevHash) {
            faults.push({
                line,
                kind: 'prev_hash_mismatch',
                message: `chain break: prev_hash ${chain_short(row.prev_hash)} does not match the previous step_hash ${chain_short(this.prevHash)}`,
            });
        }
        return faults;
    }
    /** The step hash check, then advance past the row. */
    finish(line, row, computedHash, linkFaults) {
        let faults = linkFaults;
        if (computedHash !== row.step_hash) {
            faults = [
                ...linkFaults,
                {
                    line,
                    kind: 'step_hash_mismatch',
                    message: `field tamper: stored step_hash ${chain_short(row.step_hash)}, recomputed ${chain_short(computedHash)}`,
                },
            ];
        }
        this.expectedSeq = row.seq + 1;
        this.prevHash = row.step_hash;
        this.steps++;
        return faults;
    }
    get head() {
        return this.prevHash;
    }
}

;// CONCATENATED MODULE: ./src/canonical/value.ts
/**
 * The value model shared by the parser and the encoders.
 *
 * JavaScript's `number` cannot tell `1` from `1.0` and loses integers past 2^53,
 * while the hashes are defined over Python's values, where both matter. So:
 * - integers are `number` (when safe) or `bigint` (any size);
 * - floats are `number` when not integral, and `JsonFloat` when the value alone
 *   would read as an integer (`1.0`, `-0.0`) or is not finite (`NaN`, `Infinity`).
 * Objects are plain records; a `Map` is accepted where key insertion order matters
 * (JavaScript records put integer-like keys first, Python dicts do not).
 */
class JsonFloat {
    value;
    constructor(value) {
        this.value = value;
    }
}
/** A float that keeps its float-ness through an encode, whatever its value. */
function value_float(value) {
    return Number.isInteger(value) || !Number.isFinite(value) || Object.is(value, -0) ? new JsonFloat(value) : value;
}
function isJsonObject(v) {
    return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof JsonFloat) && !(v instanceof Map);
}
/** The numeric value of an int or float, or undefined for anything else. */
function numericValue(v) {
    if (typeof v === 'number')
        return v;
    if (typeof v === 'bigint')
        return Number(v);
    if (v instanceof JsonFloat)
        return v.value;
    return undefined;
}
/** True for a value that Python would hold as an `int` (not a bool). */
function isJsonInteger(v) {
    return (typeof v === 'number' && Number.isInteger(v)) || typeof v === 'bigint';
}
/** Sets a key on a record without tripping over `__proto__`. */
function setKey(obj, key, value) {
    if (key === '__proto__') {
        Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
    }
    else {
        obj[key] = value;
    }
}

;// CONCATENATED MODULE: ./src/canonical/float-repr.ts
/**
 * Python's `repr(float)`: the shortest digits that round-trip (JavaScript's
 * `Number#toString` picks the same digits: shortest, then closest), laid out the
 * Python way: fixed notation when the first digit's decimal exponent is in
 * [-4, 16), scientific otherwise, always a fractional part in fixed notation.
 */
function pythonFloatRepr(x) {
    if (Number.isNaN(x))
        return 'NaN';
    if (x === Infinity)
        return 'Infinity';
    if (x === -Infinity)
        return '-Infinity';
    if (x === 0)
        return Object.is(x, -0) ? '-0.0' : '0.0';
    const sign = x < 0 ? '-' : '';
    const s = String(Math.abs(x));
    const ei = s.indexOf('e');
    const mantissa = ei < 0 ? s : s.slice(0, ei);
    const shift = ei < 0 ? 0 : Number(s.slice(ei + 1));
    const dot = mantissa.indexOf('.');
    const intPart = dot < 0 ? mantissa : mantissa.slice(0, dot);
    const all = dot < 0 ? mantissa : intPart + mantissa.slice(dot + 1);
    let lead = 0;
    while (lead < all.length - 1 && all.charCodeAt(lead) === 48)
        lead++;
    let end = all.length;
    while (end > lead + 1 && all.charCodeAt(end - 1) === 48)
        end--;
    const digits = all.slice(lead, end);
    // Decimal exponent of the first significant digit.
    const exp = intPart.length + shift - lead - 1;
    if (exp >= -4 && exp < 16) {
        if (exp >= 0) {
            const whole = digits.length > exp + 1 ? digits.slice(0, exp + 1) : digits.padEnd(exp + 1, '0');
            const frac = digits.length > exp + 1 ? digits.slice(exp + 1) : '0';
            return `${sign}${whole}.${frac}`;
        }
        return `${sign}0.${'0'.repeat(-exp - 1)}${digits}`;
    }
    const m = digits.length === 1 ? digits : `${digits[0]}.${digits.slice(1)}`;
    const e = `${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
    return `${sign}${m}e${e}`;
}

;// CONCATENATED MODULE: ./src/canonical/key-order.ts
/**
 * Compares two strings by Unicode code point, as Python compares `str`.
 * JavaScript's default order compares UTF-16 code units, which disagrees once
 * a surrogate pair (code point >= U+10000) meets a BMP character >= U+E000.
 * Lone surrogates compare by their own value, as in Python.
 */
function compareCodePoints(a, b) {
    const n = Math.min(a.length, b.length);
    let i = 0;
    while (i < n && a.charCodeAt(i) === b.charCodeAt(i))
        i++;
    if (i === n)
        return a.length - b.length;
    const ca = a.charCodeAt(i);
    const cb = b.charCodeAt(i);
    if (ca < 0xd800 && cb < 0xd800)
        return ca - cb;
    // A low surrogate after a shared high surrogate: step back so the pair is read whole.
    const low = (c) => c >= 0xdc00 && c <= 0xdfff;
    if (i > 0 && (low(ca) || low(cb))) {
        const prev = a.charCodeAt(i - 1);
        if (prev >= 0xd800 && prev <= 0xdbff)
            i--;
    }
    return (a.codePointAt(i) ?? 0) - (b.codePointAt(i) ?? 0);
}

;// CONCATENATED MODULE: ./src/canonical/encode.ts



/** Raised for values that have no canonical encoding (NaN given to a writer, a function, ...). */
class CanonicalEncodeError extends Error {
    name = 'CanonicalEncodeError';
}
const MAX_DEPTH = 4096;
const SHORT_ESCAPES = {
    0x22: '\\"',
    0x5c: '\\\\',
    0x0a: '\\n',
    0x0d: '\\r',
    0x09: '\\t',
    0x08: '\\b',
    0x0c: '\\f',
};
const PLAIN_ASCII = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;
/** Python `json.dumps` string encoding with `ensure_ascii=True`. */
function encodeString(s) {
    if (PLAIN_ASCII.test(s))
        return `"${s}"`;
    let out = '"';
    let run = 0;
    for (let i = 0; i < s.length; i++) {
        const c = s.charCodeAt(i);
        if (c >= 0x20 && c <= 0x7e && c !== 0x22 && c !== 0x5c)
            continue;
        out += s.slice(run, i);
        out += SHORT_ESCAPES[c] ?? `\\u${c.toString(16).padStart(4, '0')}`;
        run = i + 1;
    }
    return `${out}${s.slice(run)}"`;
}
function encodeNumber(n, allowNonFinite) {
    if (Number.isInteger(n)) {
        return Number.isSafeInteger(n) ? String(n === 0 ? 0 : n) : BigInt(n).toString();
    }
    if (!Number.isFinite(n) && !allowNonFinite) {
        throw new CanonicalEncodeError(`${String(n)} is not allowed in a written value (JSON has no NaN or Infinity)`);
    }
    return pythonFloatRepr(n);
}
/**
 * Encodes a value as Python's `json.dumps` would: by default
 * `json.dumps(v, sort_keys=True, separators=(",", ":"))`.
 */
function encode(value, options = {}) {
    const sortKeys = options.sortKeys ?? true;
    const pretty = options.separators === 'pretty';
    const itemSep = pretty ? ', ' : ',';
    const keySep = pretty ? ': ' : ':';
    const allowNonFinite = options.allowNonFinite ?? false;
    const entriesOf = (obj) => {
        const entries = obj instanceof Map ? [...obj] : Object.entries(obj);
        if (sortKeys)
            entries.sort((x, y) => compareCodePoints(x[0], y[0]));
        return entries;
    };
    const walk = (v, depth) => {
        switch (typeof v) {
            case 'string':
                return encodeString(v);
            case 'number':
                return encodeNumber(v, allowNonFinite);
            case 'bigint':
                return v.toString();
            case 'boolean':
                return v ? 'true' : 'false';
            case 'object': {
                if (v === null)
                    return 'null';
                if (depth > MAX_DEPTH)
                    throw new CanonicalEncodeError(`value nested deeper than ${MAX_DEPTH} levels`);
                if (v instanceof JsonFloat) {
                    if (!Number.isFinite(v.value) && !allowNonFinite) {
                        throw new CanonicalEncodeError(`${String(v.value)} is not allowed in a written value (JSON has no NaN or Infinity)`);
                    }
                    return pythonFloatRepr(v.value);
                }
                if (Array.isArray(v)) {
                    let out = '[';
                    for (let i = 0; i < v.length; i++) {
                        if (i > 0)
                            out += itemSep;
                        out += walk(v[i], depth + 1);
                    }
                    return `${out}]`;
                }
                let out = '{';
                let first = true;
                for (const [k, item] of entriesOf(v)) {
                    if (item === undefined)
                        continue;
                    if (!first)
                        out += itemSep;
                    first = false;
                    out += encodeString(k) + keySep + walk(item, depth + 1);
                }
                return `${out}}`;
            }
            default:
                throw new CanonicalEncodeError(`a ${typeof v} has no JSON encoding`);
        }
    };
    return walk(value, 0);
}
/** `json.dumps(v, sort_keys=True, separators=(",", ":"))`: the hashed form. */
function canonical(value) {
    return encode(value);
}
/** Re-encodes a value that was read (so NaN and infinities are kept as read). */
function encode_canonicalOfRead(value) {
    return encode(value, { allowNonFinite: true });
}
/** `json.dumps(v, sort_keys=True)`: the audit log's form. */
function prettySorted(value) {
    return encode(value, { separators: 'pretty' });
}
/** `json.dumps(v)`: insertion order, default separators (run journal rows). */
function prettyInsertionOrder(value) {
    return encode(value, { sortKeys: false, separators: 'pretty' });
}

;// CONCATENATED MODULE: ./src/canonical/parse.ts

/** Malformed JSON, with the 1-based column (in UTF-16 units) where reading stopped. */
class JsonParseError extends Error {
    reason;
    column;
    name = 'JsonParseError';
    constructor(reason, column) {
        super(`${reason} at column ${column}`);
        this.reason = reason;
        this.column = column;
    }
}
const parse_MAX_DEPTH = 4096;
/** Python 3.11+ refuses to read integers of more than 4300 digits; so do we, to agree on what verifies. */
const MAX_INT_DIGITS = 4300;
const NUMBER = /-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?/y;
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
/** Decodes UTF-8 strictly (invalid sequences are an error, not U+FFFD). */
function decodeUtf8(bytes) {
    try {
        return utf8.decode(bytes);
    }
    catch {
        throw new JsonParseError('invalid UTF-8', 1);
    }
}
/**
 * Parses JSON text the way Python's `json.loads` does: `NaN`, `Infinity` and
 * `-Infinity` are accepted, control characters in strings, trailing commas and
 * comments are not, the last duplicate key wins, and numbers keep their exact
 * value and their int-or-float kind (see `value.ts`).
 */
function parse(text, options = {}) {
    const asMap = options.objects === 'map';
    let i = 0;
    const n = text.length;
    const fail = (reason, at = i) => {
        throw new JsonParseError(reason, at + 1);
    };
    const skipWs = () => {
        while (i < n) {
            const c = text.charCodeAt(i);
            if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09)
                i++;
            else
                break;
        }
    };
    const parseString = () => {
        // At the opening quote.
        const start = ++i;
        let out = '';
        let run = start;
        for (;;) {
            if (i >= n)
                fail('unterminated string', start - 1);
            const c = text.charCodeAt(i);
            if (c === 0x22) {
                out += text.slice(run, i);
                i++;
                return out;
            }
            if (c < 0x20)
                fail('invalid control character in string');
            if (c !== 0x5c) {
                i++;
                continue;
            }
            out += text.slice(run, i);
            const e = text.charCodeAt(i + 1);
            switch (e) {
                case 0x22:
                    out += '"';
                    break;
                case 0x5c:
                    out += '\\';
                    break;
                case 0x2f:
                    out += '/';
                    break;
                case 0x62:
                    out += '\b';
                    break;
                case 0x66:
                    out += '\f';
                    break;
                case 0x6e:
                    out += '\n';
                    break;
                case 0x72:
                    out += '\r';
                    break;
                case 0x74:
                    out += '\t';
                    break;
                case 0x75: {
                    const hex = text.slice(i + 2, i + 6);
                    if (!/^[0-9a-fA-F]{4}$/.test(hex))
                        fail('invalid \\uXXXX escape');
                    out += String.fromCharCode(parseInt(hex, 16));
                    i += 4;
                    break;
                }
                default:
                    fail('invalid escape');
            }
            i += 2;
            run = i;
        }
    };
    const parseNumber = () => {
        NUMBER.lastIndex = i;
        const m = NUMBER.exec(text);
        if (m === null)
            return fail('expecting value');
        const token = m[0];
        const start = i;
        i += token.length;
        if (m[1] !== undefined || m[2] !== undefined) {
            const f = Number(token);
            return Number.isInteger(f) || Object.is(f, -0) || !Number.isFinite(f) ? new JsonFloat(f) : f;
        }
        const digits = token.length - (token.charCodeAt(0) === 0x2d ? 1 : 0);
        if (digits <= 15)
            return Number(token);
        if (digits > MAX_INT_DIGITS)
            fail(`integer of ${digits} digits exceeds the ${MAX_INT_DIGITS}-digit limit`, start);
        const big = BigInt(token);
        return big >= BigInt(Number.MIN_SAFE_INTEGER) && big <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(big) : big;
    };
    const parseValue = (depth) => {
        if (depth > parse_MAX_DEPTH)
            fail(`nested deeper than ${parse_MAX_DEPTH} levels`);
        skipWs();
        const c = text.charCodeAt(i);
        switch (c) {
            case 0x22:
                return parseString();
            case 0x7b: {
                i++;
                const obj = {};
                const map = new Map();
                skipWs();
                if (text.charCodeAt(i) === 0x7d) {
                    i++;
                    return asMap ? map : obj;
                }
                for (;;) {
                    skipWs();
                    if (text.charCodeAt(i) !== 0x22)
                        fail('expecting property name enclosed in double quotes');
                    const key = parseString();
                    skipWs();
                    if (text.charCodeAt(i) !== 0x3a)
                        fail("expecting ':' delimiter");
                    i++;
                    const value = parseValue(depth + 1);
                    if (asMap)
                        map.set(key, value);
                    else
                        setKey(obj, key, value);
                    skipWs();
                    const d = text.charCodeAt(i);
                    if (d === 0x2c) {
                        i++;
                        continue;
                    }
                    if (d === 0x7d) {
                        i++;
                        return asMap ? map : obj;
                    }
                    fail("expecting ',' delimiter");
                }
            }
            case 0x5b: {
                i++;
                const arr = [];
                skipWs();
                if (text.charCodeAt(i) === 0x5d) {
                    i++;
                    return arr;
                }
                for (;;) {
                    arr.push(parseValue(depth + 1));
                    skipWs();
                    const d = text.charCodeAt(i);
                    if (d === 0x2c) {
                        i++;
                        continue;
                    }
                    if (d === 0x5d) {
                        i++;
                        return arr;
                    }
                    fail("expecting ',' delimiter");
                }
            }
            case 0x6e:
                return literal('null', null);
            case 0x74:
                return literal('true', true);
            case 0x66:
                return literal('false', false);
            case 0x4e:
                return literal('NaN', new JsonFloat(NaN));
            case 0x49:
                return literal('Infinity', new JsonFloat(Infinity));
            case 0x2d:
                if (text.startsWith('-Infinity', i))
                    return literal('-Infinity', new JsonFloat(-Infinity));
                return parseNumber();
            default:
                if (c >= 0x30 && c <= 0x39)
                    return parseNumber();
                return fail('expecting value');
        }
    };
    const literal = (word, value) => {
        if (!text.startsWith(word, i))
            fail('expecting value');
        i += word.length;
        return value;
    };
    const value = parseValue(0);
    skipWs();
    if (i < n)
        fail('extra data');
    return value;
}
/** Parses UTF-8 bytes (strictly decoded). A byte-order mark is malformed, as for Python `str`. */
function parseBytes(bytes, options = {}) {
    return parse(decodeUtf8(bytes), options);
}

;// CONCATENATED MODULE: ./src/canonical/index.ts






;// CONCATENATED MODULE: ./src/journal/fast-line.ts


const fast_line_NUMBER = /-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?/y;
const fast_line_MAX_DEPTH = 512;
const fast_line_MAX_INT_DIGITS = 4300;
let s = '';
/**
 * A canonical string literal, matched by one sticky regex (linear: every
 * alternative starts with a different character): printable ASCII but `"` and
 * `\`, the short escapes, and `\u` + 4 lowercase hex digits for code units
 * that have neither a literal nor a short form.
 */
const STRING = /"(?:[\x20\x21\x23-\x5b\x5d-\x7e]|\\["\\bfnrt]|\\u(?!00(?:0[89acd]|[2-6][0-9a-f]|7[0-9a-e]))[0-9a-f]{4})*"/y;
function scanString(i) {
    STRING.lastIndex = i;
    return STRING.test(s) ? STRING.lastIndex : -1;
}
function scanNumber(i) {
    fast_line_NUMBER.lastIndex = i;
    const m = fast_line_NUMBER.exec(s);
    if (m === null)
        return -1;
    const token = m[0];
    if (m[1] !== undefined || m[2] !== undefined) {
        return pythonFloatRepr(Number(token)) === token ? i + token.length : -1;
    }
    if (token === '-0' || token.length > fast_line_MAX_INT_DIGITS)
        return -1;
    return i + token.length;
}
function keyLess(a0, a1, b0, b1) {
    const a = s.slice(a0 + 1, a1 - 1);
    const b = s.slice(b0 + 1, b1 - 1);
    if (a.indexOf('\\') < 0 && b.indexOf('\\') < 0)
        return a < b;
    return compareCodePoints(JSON.parse(`"${a}"`), JSON.parse(`"${b}"`)) < 0;
}
function scanValue(i, depth) {
    const c = s.charCodeAt(i);
    switch (c) {
        case 0x22:
            return scanString(i);
        case 0x7b: {
            if (depth > fast_line_MAX_DEPTH)
                return -1;
            let j = i + 1;
            if (s.charCodeAt(j) === 0x7d)
                return j + 1;
            let prevKey0 = -1;
            let prevKey1 = -1;
            for (;;) {
                if (s.charCodeAt(j) !== 0x22)
                    return -1;
                const k1 = scanString(j);
                if (k1 < 0)
                    return -1;
                if (prevKey0 >= 0 && !keyLess(prevKey0, prevKey1, j, k1))
                    return -1;
                prevKey0 = j;
                prevKey1 = k1;
                if (s.charCodeAt(k1) !== 0x3a)
                    return -1;
                j = scanValue(k1 + 1, depth + 1);
                if (j < 0)
                    return -1;
                const d = s.charCodeAt(j);
                if (d === 0x7d)
                    return j + 1;
                if (d !== 0x2c)
                    return -1;
                j++;
            }
        }
        case 0x5b: {
            if (depth > fast_line_MAX_DEPTH)
                return -1;
            let j = i + 1;
            if (s.charCodeAt(j) === 0x5d)
                return j + 1;
            for (;;) {
                j = scanValue(j, depth + 1);
                if (j < 0)
                    return -1;
                const d = s.charCodeAt(j);
                if (d === 0x5d)
                    return j + 1;
                if (d !== 0x2c)
                    return -1;
                j++;
            }
        }
        case 0x6e:
            return s.startsWith('null', i) ? i + 4 : -1;
        case 0x74:
            return s.startsWith('true', i) ? i + 4 : -1;
        case 0x66:
            return s.startsWith('false', i) ? i + 5 : -1;
        case 0x4e:
            return s.startsWith('NaN', i) ? i + 3 : -1;
        case 0x49:
            return s.startsWith('Infinity', i) ? i + 8 : -1;
        case 0x2d:
            if (s.startsWith('-Infinity', i))
                return i + 9;
            return scanNumber(i);
        default:
            return c >= 0x30 && c <= 0x39 ? scanNumber(i) : -1;
    }
}
/** 64 lowercase hex digits at i (a loop: cheaper than a regex call for 64 characters). */
function hexAt(i) {
    for (let k = i; k < i + 64; k++) {
        const c = s.charCodeAt(k);
        if (!((c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x66)))
            return false;
    }
    return true;
}
/** One-shot SHA-256 of an ASCII string (crypto.hash where Node has it: no Hash object per row). */
const oneShot = external_node_crypto_namespaceObject.hash;
function sha256Ascii(text) {
    return oneShot !== undefined
        ? oneShot('sha256', text, 'hex')
        : external_node_crypto_namespaceObject.createHash('sha256').update(text, 'latin1').digest('hex');
}
/**
 * Checks the line `text[a..b)` (a latin1 view of the line's bytes) and hashes
 * its payload; undefined when the line is not a canonical row this path
 * handles (the slow path then decides).
 */
function fastRow(text, a, b, expectedPrev, refs) {
    s = text;
    const refsAt = refs === undefined ? 0 : refs.length;
    if (!s.startsWith('{"blob_refs":[', a))
        return undefined;
    let i = a + 14;
    if (s.charCodeAt(i) === 0x5d)
        i++;
    else {
        for (;;) {
            if (s.charCodeAt(i) !== 0x22 || !hexAt(i + 1) || s.charCodeAt(i + 65) !== 0x22)
                return dropRefs(refs, refsAt);
            refs?.push(s.slice(i + 1, i + 65));
            i += 66;
            const d = s.charCodeAt(i++);
            if (d === 0x5d)
                break;
            if (d !== 0x2c)
                return dropRefs(refs, refsAt);
        }
    }
    let row;
    try {
        row = fastRowRest(i, b, expectedPrev);
    }
    catch (e) {
        // The string regex backtracks on its own stack: a string of megabytes overflows it.
        if (!(e instanceof RangeError))
            throw e;
    }
    return row === undefined ? dropRefs(refs, refsAt) : row;
}
/** A line the fast path gives up on leaves no refs behind (the slow path collects them). */
function dropRefs(refs, at) {
    if (refs !== undefined)
        refs.length = at;
    return undefined;
}
function fastRowRest(i, b, expectedPrev) {
    if (!s.startsWith(',"input_hash":"', i) || !hexAt(i + 15) || s.charCodeAt(i + 79) !== 0x22)
        return undefined;
    const p1 = i + 1;
    i += 80;
    if (!s.startsWith(',"model":', i))
        return undefined;
    i = scanValue(i + 9, 0);
    if (i < 0 || !s.startsWith(',"prev_hash":"', i) || s.charCodeAt(i + 78) !== 0x22)
        return undefined;
    const prev = s.slice(i + 14, i + 78);
    // Equal to the expected (hex) link, it is hex; only a mismatch needs the digit check.
    if (prev !== expectedPrev && !hexAt(i + 14))
        return undefined;
    i += 79;
    if (!s.startsWith(',"prompt":', i))
        return undefined;
    i = scanValue(i + 10, 0);
    if (i < 0 || !s.startsWith(',"seq":', i))
        return undefined;
    const p1end = i;
    i += 7;
    const seqStart = i;
    if (s.charCodeAt(i) === 0x30)
        i++;
    else
        while (i < b && s.charCodeAt(i) >= 0x30 && s.charCodeAt(i) <= 0x39)
            i++;
    if (i === seqStart || i - seqStart > 15)
        return undefined;
    const seq = Number(s.slice(seqStart, i));
    if (!s.startsWith(',"step_hash":"', i) || s.charCodeAt(i + 78) !== 0x22)
        return undefined;
    const stored = s.slice(i + 14, i + 78);
    const storedAt = i + 14;
    i += 79;
    if (!s.startsWith(',"tool_call":', i))
        return undefined;
    const p2 = i + 1;
    i = scanValue(i + 13, 0);
    if (i < 0 || !s.startsWith(',"tool_result":', i))
        return undefined;
    i = scanValue(i + 15, 0);
    if (i < 0 || !s.startsWith(',"ts":', i))
        return undefined;
    const p2end = i;
    i += 6;
    fast_line_NUMBER.lastIndex = i;
    const m = fast_line_NUMBER.exec(s);
    if (m === null || (m[1] === undefined && m[2] === undefined))
        return undefined;
    if (pythonFloatRepr(Number(m[0])) !== m[0])
        return undefined;
    i += m[0].length;
    if (i !== b - 1 || s.charCodeAt(i) !== 0x7d)
        return undefined;
    // The line is pure ASCII here, so the string's code units are its bytes.
    const computedHash = sha256Ascii(`{${s.slice(p1, p1end)},${s.slice(p2, p2end)}}`);
    if (stored !== computedHash && !hexAt(storedAt))
        return undefined;
    return { seq, prev_hash: prev, step_hash: stored, computedHash };
}

;// CONCATENATED MODULE: ./src/journal/step-hash.ts


function payloadOf(f) {
    return {
        prev_hash: f.prev_hash,
        input_hash: f.input_hash,
        model: f.model,
        prompt: f.prompt,
        tool_call: f.tool_call,
        tool_result: f.tool_result,
    };
}
/**
 * The canonical payload a peer hashes by hand:
 * `canonical({prev_hash, input_hash, model, prompt, tool_call, tool_result})`.
 * `read` values may carry NaN/Infinity (Python writes them); values being written may not.
 */
function stepPayload(f, read = false) {
    return read ? encode_canonicalOfRead(payloadOf(f)) : canonical(payloadOf(f));
}
/** `step_hash = sha256_hex(canonical(six fields))`. */
function computeStepHash(f, read = false) {
    return sha256Hex(stepPayload(f, read));
}

;// CONCATENATED MODULE: ./src/journal/row.ts



const ROW_KEYS = [
    'blob_refs',
    'input_hash',
    'model',
    'prev_hash',
    'prompt',
    'seq',
    'step_hash',
    'tool_call',
    'tool_result',
    'ts',
];
/** The row as a JSON value (ts kept a float even when integral). */
function row_rowValue(row) {
    return {
        blob_refs: row.blob_refs,
        input_hash: row.input_hash,
        model: row.model,
        prev_hash: row.prev_hash,
        prompt: row.prompt,
        seq: row.seq,
        step_hash: row.step_hash,
        tool_call: row.tool_call,
        tool_result: row.tool_result,
        ts: value_float(row.ts),
    };
}
/** The line for a row, without its newline. */
function encodeRow(row) {
    return canonical(row_rowValue(row));
}
/** Reads one line's bytes (without the newline) as a row; never throws. */
function readRowLine(bytes) {
    let value;
    let text;
    try {
        text = decodeUtf8(bytes);
        value = parse(text);
    }
    catch (e) {
        if (e instanceof JsonParseError)
            return { kind: 'malformed', reason: e.message };
        if (e instanceof RangeError)
            return { kind: 'malformed', reason: 'line too large or too deeply nested' };
        throw e;
    }
    return rowFromValue(value, text);
}
/** Checks the shape of a parsed row; `text` (when known) decides canonicality. */
function rowFromValue(value, text) {
    if (!isJsonObject(value))
        return { kind: 'malformed', reason: 'line is not a JSON object' };
    for (const k of ROW_KEYS) {
        if (!Object.prototype.hasOwnProperty.call(value, k))
            return { kind: 'malformed', reason: `row has no "${k}" key` };
    }
    const v = value;
    if (typeof v.prev_hash !== 'string')
        return { kind: 'malformed', reason: '"prev_hash" is not a string' };
    if (typeof v.step_hash !== 'string')
        return { kind: 'malformed', reason: '"step_hash" is not a string' };
    if (typeof v.input_hash !== 'string')
        return { kind: 'malformed', reason: '"input_hash" is not a string' };
    if (!isJsonInteger(v.seq) || typeof v.seq === 'bigint' || v.seq < 0) {
        return { kind: 'malformed', reason: '"seq" is not a non-negative integer' };
    }
    const refs = v.blob_refs;
    if (!Array.isArray(refs) || !refs.every((r) => isSha256Hex(r))) {
        return { kind: 'malformed', reason: '"blob_refs" is not a list of SHA-256 hex digests' };
    }
    const ts = numericValue(v.ts);
    if (ts === undefined)
        return { kind: 'malformed', reason: '"ts" is not a number' };
    const row = {
        blob_refs: refs,
        input_hash: v.input_hash,
        model: v.model,
        prev_hash: v.prev_hash,
        prompt: v.prompt,
        seq: v.seq,
        step_hash: v.step_hash,
        tool_call: v.tool_call,
        tool_result: v.tool_result,
        ts,
    };
    let isCanonical = false;
    if (text !== undefined) {
        try {
            isCanonical = encode_canonicalOfRead(value) === text && Object.keys(value).length === ROW_KEYS.length;
        }
        catch {
            isCanonical = false;
        }
    }
    return { kind: 'row', row, value, computedHash: computeStepHash(row, true), canonical: isCanonical };
}

;// CONCATENATED MODULE: ./src/journal/wasm/scan-wasm.generated.ts
// Generated by scripts/build-wasm.mjs from src/journal/wasm/assembly/scan.ts: do not edit.
// AssemblyScript 0.28.20, 6358 bytes.
const SCAN_WASM_BASE64 = 'AGFzbQEAAAABHARgAX8Bf2ACf38Bf2AAAX9gCH9/f39/f39/AX8DCQgBAAAAAwECAgUDAQABBmMSfwBBwAALfwFBAAt/AUEAC38B' +
    'QQALfwFBAAt/AUEAC38BQQALfwFBAAt/AUEAC38BQQALfwFBAAt/AUEAC38BQQALfwFBAAt/AUEAC38BQQALfwFBAAt8AUQAAAAA' +
    'AAAAAAsHLgUIUkVDX1NJWkUDAAhoZWFwQmFzZQAHBG5leHQABgRzY2FuAAQGbWVtb3J5AgAMASAKlSsIzQgBCn8gACMBSCAAQQBO' +
    'cQR/IAAtAAAFQYACCyICQSJGBEAgABACDwsCQAJAIAJB+wBGBEAgAUGABEoNASAAQQFqIgYjAUggBkEATnEEfyAGLQAABUGAAgtB' +
    '/QBGDQJBfyEAQX8hBQNAIAYjAUggBkEATnEEfyAGLQAABUGAAgtBIkcNAiAGEAIiA0EASA0CIwIhAiAAQQBOBEBBASAEIAIbDQMg' +
    'BSAAa0ECayIHIAMgBmtBAmsiBCAEIAdKGyEKQQEhBQJAA0AgBSAKTARAIAAgBWotAAAiCSAFIAZqLQAAIghIIQsgCCAJRw0CIAVB' +
    'AWohBQwBCwsgBCAHSiELCyALRQ0DCyAGIQAgAiEEIAMiBSMBSCAFQQBOcQR/IAUtAAAFQYACC0E6Rw0CIAVBAWogAUEBahAAIgZB' +
    'AEgNAiAGIwFIIAZBAE5xBH8gBi0AAAVBgAILIgJB/QBGDQMgAkEsRw0CIAZBAWohBgwACwALIAJB2wBGBEAgAUGABEoNASAAQQFq' +
    'IgYjAUggBkEATnEEfyAGLQAABUGAAgtB3QBGDQIDQCAGIAFBAWoQACIGQQBIDQIgBiMBSCAGQQBOcQR/IAYtAAAFQYACCyIAQd0A' +
    'Rg0DIABBLEcNAiAGQQFqIQYMAAsACyACQe4ARgRAIABBBGpBfwJ/QQAgAEEASCAAIwFBvAsoAgBBAXYiAWtKcg0AGgNAIAEgBkoE' +
    'QEEAIAAgBmotAAAgBkEBdEHAC2ovAQBHDQIaIAZBAWohBgwBCwtBAQsbDwsgAkH0AEYEQCAAQQRqQX8Cf0EAIABBAEggACMBQdwL' +
    'KAIAQQF2IgFrSnINABoDQCABIAZKBEBBACAAIAZqLQAAIAZBAXRB4AtqLwEARw0CGiAGQQFqIQYMAQsLQQELGw8LIAJB5gBGBEAg' +
    'AEEFakF/An9BACAAQQBIIAAjAUH8CygCAEEBdiIBa0pyDQAaA0AgASAGSgRAQQAgACAGai0AACAGQQF0QYAMai8BAEcNAhogBkEB' +
    'aiEGDAELC0EBCxsPCyACQc4ARgRAIABBA2pBfwJ/QQAgAEEASCAAIwFBnAwoAgBBAXYiAWtKcg0AGgNAIAEgBkoEQEEAIAAgBmot' +
    'AAAgBkEBdEGgDGovAQBHDQIaIAZBAWohBgwBCwtBAQsbDwsgAkHJAEYEQCAAQQhqQX8Cf0EAIABBAEggACMBQbwMKAIAQQF2IgFr' +
    'SnINABoDQCABIAZKBEBBACAAIAZqLQAAIAZBAXRBwAxqLwEARw0CGiAGQQFqIQYMAQsLQQELGw8LIAJBLUYEQAJ/QQAgAEEASCAA' +
    'IwFB7AwoAgBBAXYiAWtKcg0AGgNAIAEgBkoEQEEAIAAgBmotAAAgBkEBdEHwDGovAQBHDQIaIAZBAWohBgwBCwtBAQsEQCAAQQlq' +
    'DwsgABABDwsgAkEwa0EKSQR/IAAQAQVBfwsPC0F/DwsgBkEBagvyBAEDf0EAJAkgAEEBaiAAIAAjAUggAEEATnEEfyAALQAABUGA' +
    'AgtBLUYbIgEjAUggAUEATnEEfyABLQAABUGAAgsiAkEwRgRAIAFBAWohAQUgAkE5TCACQTFOcQRAIAFBAWohAQNAIAEjAUggAUEA' +
    'TnEEfyABLQAABUGAAgtBMGtBCkkEQCABQQFqIQEMAQsLBUF/DwsLIAEjAUggAUEATnEEfyABLQAABUGAAgtBLkYEfyABQQFqIgIj' +
    'AUggAkEATnEEfyACLQAABUGAAgtBMGtBCkkFQQALBEAgAUECaiEBA0AgASMBSCABQQBOcQR/IAEtAAAFQYACC0Ewa0EKSQRAIAFB' +
    'AWohAQwBCwtBASQJCyABIwFIIAFBAE5xBH8gAS0AAAVBgAILIgJBxQBGIAJB5QBGcgRAIAFBAWoiAiMBSCACQQBOcQR/IAItAAAF' +
    'QYACCyIDQS1GIANBK0ZyBEAgAkEBaiECCyMBIAJKIAJBAE5xBH8gAi0AAAVBgAILQTBrQQpJBEAgAkEBaiEBA0AgASMBSCABQQBO' +
    'cQR/IAEtAAAFQYACC0Ewa0EKSQRAIAFBAWohAQwBCwtBASQJIAEhAQsLIwkEQCABQX8gACABEAUEf0EBBQJ/IwUjBE4EQEEBJAZB' +
    'AAwBCyMDIwVBA3RqIgIgADYCACACIAE2AgQjBUEBaiQFQQELCxsPCyABIABrQQJGBH8gACMBSCAAQQBOcQR/IAAtAAAFQYACC0Et' +
    'RgVBAAsEfyAAQQFqIgIjAUggAkEATnEEfyACLQAABUGAAgtBMEYFQQALBEBBfw8LIAEgAGtBzCFKBEBBfw8LIAEL9gMCAXsEf0EA' +
    'JAIgAEEBaiEAA0ADfyAAIwFBEGtMIABBAE5xBH8gAP0ABAAiAf0MICAgICAgICAgICAgICAgIP0mIAH9DH5+fn5+fn5+fn5+fn5+' +
    'fn79KP1QIAH9DCIiIiIiIiIiIiIiIiIiIiL9IyAB/QxcXFxcXFxcXFxcXFxcXFxc/SP9UP1Q/WQiAkUEQCAAQRBqIQAMAgsgACAC' +
    'aGoFIAALCyIEIwFIIARBAE5xBH8gBC0AAAVBgAILIgBBIkYEQCAEQQFqDwsgAEHcAEYEQEEBJAIgBEEBaiIAIwFIIABBAE5xBH8g' +
    'AC0AAAVBgAILIgBB9QBGIAQjAUEGa0xxBEAgBC0ABUGACGotAAAiAyAELQAEQYAIai0AACICIAQtAAJBgAhqLQAAIgUgBC0AA0GA' +
    'CGotAAAiAHJyckGAAXEEQEF/DwsgBUEMdCAAQQh0ciACQQR0ciADciIAQf4ATAR/IABBCEYgAEEgTnIgAEEJRnIgAEEKRnIgAEEM' +
    'RnIgAEENRnIFQQALBEBBfw8LIARBBmohAAwCCyAAQdwARiAAQSJGciAAQeIARnIgAEHmAEZyIABB7gBGciAAQfIARnIgAEH0AEZy' +
    'BEAgBEECaiEADAILQX8PCyAAQSBIIABB/gBKckUEQCAEQQFqIQAMAQsLQX8L8hEDA38BewF8AkACf0EAIABBAEggACMBQZwKKAIA' +
    'QQF2IgJrSnINABoDQCABIAJIBEBBACAAIAFqLQAAIAFBAXRBoApqLwEARw0CGiABQQFqIQEMAQsLQQELRQ0AQQAhASAAQQ5qIgAj' +
    'AUggAEEATnEEfyAALQAABUGAAgtB3QBGBEAgAEEBaiEABQNAAkAgACMBSCAAQQBOcQR/IAAtAAAFQYACC0EiRwR/QQAFIABBAWoi' +
    'AyMBQUBqSiADQQBIcgR/QQAF/Qz/////////////////////IQRBACECA0AgAkHAAEgEQCAEIAIgA2r9AAQAIgT9DDAwMDAwMDAw' +
    'MDAwMDAwMDD9cf0MCgoKCgoKCgoKCgoKCgoKCv0mIAT9DGFhYWFhYWFhYWFhYWFhYWH9cf0MBgYGBgYGBgYGBgYGBgYGBv0m/VD9' +
    'TiEEIAJBEGohAgwBCwsgBP1kQf//A0YLCwR/IABBwQBqIgIjAUggAkEATnEEfyACLQAABUGAAgtBIkcFQQELDQMgAUEBaiEBIABB' +
    'wgBqIgJBAWohACACIwFIIAJBAE5xBH8gAi0AAAVBgAILIgJB3QBGDQAgAkEsRg0BDAMLCwsgASQQAn9BACAAQQBIIAAjAUHMCigC' +
    'AEEBdiICa0pyDQAaQQAhAQNAIAEgAkgEQEEAIAAgAWotAAAgAUEBdEHQCmovAQBHDQIaIAFBAWohAQwBCwtBAQsEfyAAQQ9qIgEj' +
    'AUFAakogAUEASHIEf0EABf0M/////////////////////yEEQQAhAgNAIAJBwABIBEAgBCABIAJq/QAEACIE/QwwMDAwMDAwMDAw' +
    'MDAwMDAw/XH9DAoKCgoKCgoKCgoKCgoKCgr9JiAE/QxhYWFhYWFhYWFhYWFhYWFh/XH9DAYGBgYGBgYGBgYGBgYGBgb9Jv1Q/U4h' +
    'BCACQRBqIQIMAQsLIAT9ZEH//wNGCwVBAAsEfyAAQc8AaiIBIwFIIAFBAE5xBH8gAS0AAAVBgAILQSJHBUEBCw0AIABBAWokDAJ/' +
    'QQAgAEHQAGoiACMBQYwLKAIAQQF2IgJrSiAAQQBIcg0AGkEAIQEDQCABIAJIBEBBACAAIAFqLQAAIAFBAXRBkAtqLwEARw0CGiAB' +
    'QQFqIQEMAQsLQQELRQ0AIABBCWpBABAAIgBBAEgEf0EABQJ/QQAgAEEASCAAIwFBnA0oAgBBAXYiAmtKcg0AGkEAIQEDQCABIAJI' +
    'BEBBACAAIAFqLQAAIAFBAXRBoA1qLwEARw0CGiABQQFqIQEMAQsLQQELCwR/IABBzgBqIgEjAUggAUEATnEEfyABLQAABUGAAgtB' +
    'IkcFQQELBH9BAAUgAEEOaiIBIwFBQGpKIAFBAEhyBH9BAAX9DP////////////////////8hBEEAIQIDQCACQcAASARAIAQgASAC' +
    'av0ABAAiBP0MMDAwMDAwMDAwMDAwMDAwMP1x/QwKCgoKCgoKCgoKCgoKCgoK/SYgBP0MYWFhYWFhYWFhYWFhYWFhYf1x/QwGBgYG' +
    'BgYGBgYGBgYGBgYG/Sb9UP1OIQQgAkEQaiECDAELCyAE/WRB//8DRgsLRQ0AIABBDmokCgJ/QQAgAEHPAGoiAEEASCAAIwFBzA0o' +
    'AgBBAXYiAmtKcg0AGkEAIQEDQCABIAJIBEBBACAAIAFqLQAAIAFBAXRB0A1qLwEARw0CGiABQQFqIQEMAQsLQQELRQ0AIABBCmpB' +
    'ABAAIgBBAEgEf0EABQJ/QQAgAEEASCAAIwFB/A0oAgBBAXYiAmtKcg0AGkEAIQEDQCABIAJIBEBBACAAIAFqLQAAIAFBAXRBgA5q' +
    'LwEARw0CGiABQQFqIQEMAQsLQQELC0UNACAAJA0gAEEHaiIAIQEgACMBSCAAQQBOcQR/IAAtAAAFQYACC0EwRgRAIABBAWohAAUD' +
    'QCAAIwFIIABBAE5xBH8gAC0AAAVBgAILQTBrQQpJBEAgBUQAAAAAAAAkQKIgACMBSCAAQQBOcQR/IAAtAAAFQYACC0Ewa7egIQUg' +
    'AEEBaiEADAELCwsgACABRiAAIAFrQQ9Kcg0AIAUkEQJ/QQAgAEEASCAAIwFBrA4oAgBBAXYiAmtKcg0AGkEAIQEDQCABIAJIBEBB' +
    'ACAAIAFqLQAAIAFBAXRBsA5qLwEARw0CGiABQQFqIQEMAQsLQQELBH8gAEHOAGoiASMBSCABQQBOcQR/IAEtAAAFQYACC0EiRwVB' +
    'AQsEf0EABSAAQQ5qIgEjAUFAakogAUEASHIEf0EABf0M/////////////////////yEEQQAhAgNAIAJBwABIBEAgBCABIAJq/QAE' +
    'ACIE/QwwMDAwMDAwMDAwMDAwMDAw/XH9DAoKCgoKCgoKCgoKCgoKCgr9JiAE/QxhYWFhYWFhYWFhYWFhYWFh/XH9DAYGBgYGBgYG' +
    'BgYGBgYGBgb9Jv1Q/U4hBCACQRBqIQIMAQsLIAT9ZEH//wNGCwtFDQAgAEEOaiQLAn9BACAAQc8AaiIAIwFB3A4oAgBBAXYiAmtK' +
    'IABBAEhyDQAaQQAhAQNAIAEgAkgEQEEAIAAgAWotAAAgAUEBdEHgDmovAQBHDQIaIAFBAWohAQwBCwtBAQtFDQAgAEEBaiQOIABB' +
    'DWpBABAAIgBBAEgEf0EABQJ/QQAgAEEASCAAIwFBjA8oAgBBAXYiAmtKcg0AGkEAIQEDQCABIAJIBEBBACAAIAFqLQAAIAFBAXRB' +
    'kA9qLwEARw0CGiABQQFqIQEMAQsLQQELC0UNACAAQQ9qQQAQACIAQQBIBH9BAAUCf0EAIABBAEggACMBQcwPKAIAQQF2IgJrSnIN' +
    'ABpBACEBA0AgASACSARAQQAgACABai0AACABQQF0QdAPai8BAEcNAhogAUEBaiEBDAELC0EBCwtFDQAgACQPIABBBmoQASEAIwlF' +
    'IABBAEhyDQAgACMBSCAAQQBOcQR/IAAtAAAFQYACC0H9AEcNACAAQQFqIgAjAUgiAQR/IAEgAEEATnEEfyAALQAABUGAAgtBCkcF' +
    'QQALDQAgAA8LQX8LqAQBBn8jCEUEQANAIAhBgAJIBEAgCEHhAGtBBkkiCyAIQTBrIglBCkkiDHIEQAJAIAwNACAIQdcAayEJIAsN' +
    'AEF/IQkLBUGAASEJCyAIQYAIaiAJOgAAIAhBAWohCAwBCwtBASQICyABJAEgBiQDIAckBEEAJAUgBCAFaiEHA0AgACABSCADIApK' +
    'cQRAAkAgAiAKQQZ0aiEJIwUhC0EAJAYgABADIgZBAE4iCARAIw0jDGtBA2ojDyMOa2oiBSAHIARrSgRAIApBAEoNAkEAIQgFIARB' +
    '+wA6AAAgBEEBaiIMIwwjDSMMayIN/AoAACAMIA1qIgxBLDoAACAMQQFqIgwjDiMPIw5rIg38CgAAIAwgDWpB/QA6AAAgCSMKNgIQ' +
    'IAkjCzYCFCAJIAQ2AhggCSAFNgIcIAkjEDYCICAJIxE5AzAgBCAFaiEECwUgCkEASkEAIwYbBEAgCyQFDAILCyAIRQRAIAskBSMB' +
    'IQYCQCAAIgVBAEgNAANAIAUjAUEQa0wEQCAFIAX9AAQA/QwKCgoKCgoKCgoKCgoKCgoK/SP9ZCIMaGohBiAMDQIgBUEQaiEFDAEL' +
    'CwNAIAUjAUgEfyAFLQAAQQpHBUEACwRAIAVBAWohBQwBCwsgBSEGCwsgCSAANgIAIAkgBjYCBCAJIAhFNgIIIAkgASAGSjYCDCAJ' +
    'IAs2AiQgCSMFIAtrNgIoIApBAWohCiAGQQFqIQAMAgsLCyAAJAcgCguuAwEFfyAAQQFqIAAgACMBSCAAQQBOcQR/IAAtAAAFQYAC' +
    'C0EtRhsiACEEA0AgACMBSCAAQQBOcQR/IAAtAAAFQYACC0Ewa0EKSQRAIABBAWohAAwBCwsgACAEayIGQQBMBH9BAQUgACMBSCAA' +
    'QQBOcQR/IAAtAAAFQYACC0EuRwsEQEEADwsgASAAQQFqIgJrIgVBAEwEQEEADwsgAiEAA0AgACABSARAIAAjAUggAEEATnEEfyAA' +
    'LQAABUGAAgtBMGtBCk8EQEEADwsgAEEBaiEADAELCyAFQQFGIgAEQCACIwFIIAJBAE5xBH8gAi0AAAVBgAILQTBGIQALIAAEf0EA' +
    'BSABQQFrIgEjAUggAUEATnEEfyABLQAABUGAAgtBMEYLBEBBAA8LIAQjAUggBEEATnEEfyAELQAABUGAAgtBMEcEQCAGQQAgBSAA' +
    'G2pBD0wPCyAGQQFHBEBBAA8LIAAEQEEBDwsDQCADIAVIBH8gAiADaiIAIwFIIABBAE5xBH8gAC0AAAVBgAILQTBGBUEACwRAIANB' +
    'AWohAwwBCwsgBSADa0EPTCADQQNMcQsEACMHCwUAQdwPCwvtBCAAQYwKCwEsAEGYCgsjAgAAABwAAAB7ACIAYgBsAG8AYgBfAHIA' +
    'ZQBmAHMAIgA6AFsAQbwKCwE8AEHICgslAgAAAB4AAAAsACIAaQBuAHAAdQB0AF8AaABhAHMAaAAiADoAIgBB/AoLASwAQYgLCxkC' +
    'AAAAEgAAACwAIgBtAG8AZABlAGwAIgA6AEGsCwsBHABBuAsLDwIAAAAIAAAAbgB1AGwAbABBzAsLARwAQdgLCw8CAAAACAAAAHQA' +
    'cgB1AGUAQewLCwEcAEH4CwsRAgAAAAoAAABmAGEAbABzAGUAQYwMCwEcAEGYDAsNAgAAAAYAAABOAGEATgBBrAwLASwAQbgMCxcC' +
    'AAAAEAAAAEkAbgBmAGkAbgBpAHQAeQBB3AwLASwAQegMCxkCAAAAEgAAAC0ASQBuAGYAaQBuAGkAdAB5AEGMDQsBLABBmA0LIwIA' +
    'AAAcAAAALAAiAHAAcgBlAHYAXwBoAGEAcwBoACIAOgAiAEG8DQsBLABByA0LGwIAAAAUAAAALAAiAHAAcgBvAG0AcAB0ACIAOgBB' +
    '7A0LASwAQfgNCxUCAAAADgAAACwAIgBzAGUAcQAiADoAQZwOCwEsAEGoDgsjAgAAABwAAAAsACIAcwB0AGUAcABfAGgAYQBzAGgA' +
    'IgA6ACIAQcwOCwEsAEHYDgshAgAAABoAAAAsACIAdABvAG8AbABfAGMAYQBsAGwAIgA6AEH8DgsBPABBiA8LJQIAAAAeAAAALAAi' +
    'AHQAbwBvAGwAXwByAGUAcwB1AGwAdAAiADoAQbwPCwEcAEHIDwsTAgAAAAwAAAAsACIAdABzACIAOg==';

;// CONCATENATED MODULE: ./src/journal/wasm/scanner.ts



/**
 * The WebAssembly line scanner (src/journal/wasm/assembly/scan.ts) from JS: one
 * instance per thread, a block of whole lines copied into its memory, one record
 * per line back. A record is either an accepted canonical row (fastRow's result,
 * once its float tokens pass pythonFloatRepr and its payload is hashed here) or
 * a line deferred to JS (fastRow, then the slow path), so results never differ
 * from the JS fast path's.
 */
const REC_SIZE = 64;
/** Lines in a block larger than this are walked by the JS path. */
const WASM_BLOCK_CAP = 16 * 1024 * 1024;
/** Memory grows to a larger block only when a long line needs it. */
const INITIAL_CAP = 2 * 1024 * 1024;
const MAX_RECS = 4096;
const align = (v) => Math.ceil(v / 64) * 64;
const MAX_FLOATS = 65536;
const scanner_oneShot = external_node_crypto_namespaceObject.hash;
function sha256(view) {
    return scanner_oneShot !== undefined
        ? scanner_oneShot('sha256', view, 'hex')
        : external_node_crypto_namespaceObject.createHash('sha256').update(view).digest('hex');
}
class WasmScanner {
    x;
    /** The scanner's memory; blocks are loaded at `data` (see `ensure`). Replaced when memory grows. */
    mem;
    data;
    i32;
    f64;
    rec;
    floats;
    /** Room for a block at `data` (a payload scratch area of the same size follows it). */
    cap = 0;
    scratch = 0;
    blockEnd = 0;
    pos = 0;
    constructor(instance) {
        this.x = instance.exports;
        this.rec = align(this.x.heapBase());
        this.floats = align(this.rec + MAX_RECS * REC_SIZE);
        this.data = align(this.floats + MAX_FLOATS * 8);
        this.ensure(INITIAL_CAP);
    }
    /** Makes room for a block of `len` bytes at `data` (growing memory, which replaces `mem`). */
    ensure(len) {
        if (len <= this.cap)
            return;
        if (len > WASM_BLOCK_CAP)
            throw new RangeError(`block of ${len} bytes`);
        const cap = Math.min(WASM_BLOCK_CAP, Math.max(len, 2 * this.cap));
        const scratch = align(this.data + cap + 64);
        const total = scratch + cap + 64;
        const have = this.x.memory.buffer.byteLength;
        if (total > have)
            this.x.memory.grow(Math.ceil((total - have) / 65536));
        const ab = this.x.memory.buffer;
        this.mem = Buffer.from(ab);
        this.i32 = new Int32Array(ab);
        this.f64 = new Float64Array(ab);
        this.cap = cap;
        this.scratch = scratch;
    }
    /** Starts on the block of whole lines loaded at `data` (len bytes). */
    start(len) {
        if (len < 0 || len > this.cap)
            throw new RangeError(`block of ${len} bytes`);
        this.blockEnd = this.data + len;
        this.pos = this.data;
    }
    /** Scans the next batch of lines; returns their count (0 at the block end). */
    batch() {
        if (this.pos >= this.blockEnd)
            return 0;
        const n = this.x.scan(this.pos, this.blockEnd, this.rec, MAX_RECS, this.scratch, this.cap, this.floats, MAX_FLOATS);
        this.pos = this.x.next();
        return n;
    }
    /** Record k of the batch: the line's offsets in `mem`, and its row when accepted. */
    record(k, refs, out) {
        const r = (this.rec + k * REC_SIZE) >> 2;
        const i32 = this.i32;
        const start = i32[r];
        out.start = start;
        out.end = i32[r + 1];
        out.terminated = i32[r + 3] === 1;
        out.row = i32[r + 2] === 0 ? this.accepted(r, start, refs) : undefined;
        return out;
    }
    accepted(r, start, refs) {
        const i32 = this.i32;
        const mem = this.mem;
        const f0 = i32[r + 9];
        const nf = i32[r + 10];
        for (let f = f0; f < f0 + nf; f++) {
            const at = (this.floats >> 2) + f * 2;
            const token = mem.toString('latin1', i32[at], i32[at + 1]);
            if (pythonFloatRepr(Number(token)) !== token)
                return undefined;
        }
        const prev = i32[r + 4];
        const stored = i32[r + 5];
        const payload = i32[r + 6];
        const computedHash = sha256(mem.subarray(payload, payload + i32[r + 7]));
        if (refs !== undefined) {
            const nrefs = i32[r + 8];
            for (let k = 0; k < nrefs; k++) {
                const at = start + 15 + 67 * k;
                refs.push(mem.toString('latin1', at, at + 64));
            }
        }
        return {
            seq: this.f64[(r >> 1) + 6],
            prev_hash: mem.toString('latin1', prev, prev + 64),
            step_hash: mem.toString('latin1', stored, stored + 64),
            computedHash,
        };
    }
}
let compiled;
let instance;
/**
 * The compiled scanner module (undefined where WebAssembly with SIMD is not
 * available). Worker threads are handed the caller's, so they share its
 * compiled (and optimised) code instead of compiling their own.
 */
function wasmModule() {
    if (compiled === undefined) {
        try {
            compiled = new WebAssembly.Module(Buffer.from(SCAN_WASM_BASE64, 'base64'));
        }
        catch {
            compiled = null;
        }
    }
    return compiled ?? undefined;
}
/** Uses a module compiled by another thread (see wasmModule). */
function adoptWasmModule(module) {
    if (compiled === undefined && typeof WebAssembly !== 'undefined' && module instanceof WebAssembly.Module)
        compiled = module;
}
/**
 * This thread's scanner, or undefined where WebAssembly (with SIMD) is not
 * available; the JS fast path then does the work.
 */
function wasmScanner() {
    if (instance === undefined) {
        const module = wasmModule();
        try {
            instance = module === undefined ? null : new WasmScanner(new WebAssembly.Instance(module, {}));
        }
        catch {
            instance = null;
        }
    }
    return instance ?? undefined;
}

;// CONCATENATED MODULE: ./src/journal/chunk.ts





const BLOCK = 16 * 1024 * 1024;
/** Blocks for the WebAssembly scanner: small enough to stay in cache between scan, copy and hash. */
const WASM_BLOCK = 1024 * 1024;
/** The end of the block of whole lines starting at pos: about `size` bytes, or one longer line. */
function blockEndOf(buf, pos, to, size) {
    const end = Math.min(to, pos + size);
    if (end >= to)
        return to;
    const nl = buf.lastIndexOf(0x0a, end - 1);
    return nl >= pos ? nl + 1 : Math.min(to, buf.indexOf(0x0a, end) + 1 || to);
}
/**
 * Walks `buf[from..to)` (line-aligned); `base` is the absolute offset of buf[0].
 * A trap in the WebAssembly scanner (a bug of ours: it checks its bounds) is not
 * fatal: the slice is walked again by the JS path.
 */
function scanChunk(buf, from, to, base, options) {
    return withJsFallback(options, (o) => {
        const walker = new ChunkWalker(base + from, base + to, o);
        const wasm = o.wasm === false ? undefined : wasmScanner();
        let pos = from;
        while (pos < to) {
            const blockEnd = blockEndOf(buf, pos, to, wasm === undefined ? BLOCK : WASM_BLOCK);
            if (wasm !== undefined && blockEnd - pos <= WASM_BLOCK_CAP) {
                wasm.ensure(blockEnd - pos);
                buf.copy(wasm.mem, wasm.data, pos, blockEnd);
                walker.wasmBlock(wasm, blockEnd - pos, base + pos);
            }
            else
                walker.jsBlock(buf, pos, blockEnd, base);
            pos = blockEnd;
        }
        return walker.finish();
    });
}
/**
 * Walks bytes [from, to) of a journal file (line-aligned), read block by block
 * straight into the WebAssembly scanner's memory (no copy of the whole slice).
 */
function scanFileChunk(path, from, to, options) {
    return withJsFallback(options, (o) => {
        const wasm = o.wasm === false ? undefined : wasmScanner();
        if (wasm === undefined) {
            const buf = readFileRange(path, from, to - from);
            return scanChunk(buf, 0, buf.length, from, o);
        }
        const walker = new ChunkWalker(from, to, o);
        const fd = (0,external_node_fs_namespaceObject.openSync)(path, 'r');
        try {
            let pos = from;
            while (pos < to) {
                wasm.ensure(WASM_BLOCK);
                let got = readInto(fd, wasm.mem, wasm.data, Math.min(WASM_BLOCK, to - pos), pos);
                if (got === 0)
                    break; // the file shrank under us: what is there was walked
                let len = got;
                if (pos + got < to) {
                    const nl = wasm.mem.lastIndexOf(0x0a, wasm.data + got - 1);
                    if (nl >= wasm.data)
                        len = nl + 1 - wasm.data;
                    else {
                        // One line longer than a block: read on to its end, in the scanner's memory while it fits.
                        let nlAt = -1;
                        while (nlAt < 0 && pos + got < to && got < WASM_BLOCK_CAP) {
                            const want = Math.min(WASM_BLOCK, to - pos - got, WASM_BLOCK_CAP - got);
                            wasm.ensure(got + want);
                            const n = readInto(fd, wasm.mem, wasm.data + got, want, pos + got);
                            if (n === 0)
                                break;
                            const k = wasm.mem.subarray(wasm.data + got, wasm.data + got + n).indexOf(0x0a);
                            if (k >= 0)
                                nlAt = got + k;
                            got += n;
                        }
                        if (nlAt >= 0)
                            len = nlAt + 1;
                        else if (pos + got >= to || got < WASM_BLOCK_CAP)
                            len = got;
                        else {
                            const want = lineEndInFile(fd, pos + got, to) - pos;
                            const buf = readFileRange(path, pos, want);
                            walker.jsBlock(buf, 0, buf.length, pos);
                            pos += buf.length;
                            if (buf.length < want)
                                break;
                            continue;
                        }
                    }
                }
                walker.wasmBlock(wasm, len, pos);
                pos += len;
            }
        }
        finally {
            (0,external_node_fs_namespaceObject.closeSync)(fd);
        }
        return walker.finish();
    });
}
function withJsFallback(options, walk) {
    try {
        return walk(options);
    }
    catch (e) {
        if (options.wasm !== false && typeof WebAssembly !== 'undefined' && e instanceof WebAssembly.RuntimeError) {
            return walk({ ...options, wasm: false });
        }
        throw e;
    }
}
function readInto(fd, into, at, length, position) {
    let off = 0;
    while (off < length) {
        const n = (0,external_node_fs_namespaceObject.readSync)(fd, into, at + off, length - off, position + off);
        if (n === 0)
            break;
        off += n;
    }
    return off;
}
function readFileRange(path, position, length) {
    const fd = (0,external_node_fs_namespaceObject.openSync)(path, 'r');
    try {
        const buf = Buffer.allocUnsafe(length);
        return buf.subarray(0, readInto(fd, buf, 0, length, position));
    }
    finally {
        (0,external_node_fs_namespaceObject.closeSync)(fd);
    }
}
/** The offset just after the first newline at or after `at` (or `end`). */
function lineEndInFile(fd, at, end) {
    const window = Buffer.allocUnsafe(64 * 1024);
    for (let pos = at; pos < end; pos += window.length) {
        const n = (0,external_node_fs_namespaceObject.readSync)(fd, window, 0, Math.min(window.length, end - pos), pos);
        if (n === 0)
            return pos;
        const nl = window.subarray(0, n).indexOf(0x0a);
        if (nl >= 0)
            return pos + nl + 1;
    }
    return end;
}
/** The walk of one slice, line by line, fed block by block. */
class ChunkWalker {
    options;
    out;
    chain = new ChainChecker();
    line = 0;
    rec = { start: 0, end: 0, terminated: false, row: undefined };
    constructor(start, end, options) {
        this.options = options;
        this.out = { start, end, lines: 0, rows: 0, faults: [], lastRowEnd: start, lastRowUnterminated: false };
        if (options.collectRefs)
            this.out.refs = [];
    }
    /** The block of whole lines loaded in the scanner's memory (len bytes at wasm.data), at absolute offset `at`. */
    wasmBlock(wasm, len, at) {
        const { out, chain, options, rec } = this;
        const mem = wasm.mem;
        const base = at - wasm.data;
        wasm.start(len);
        for (let n = wasm.batch(); n > 0; n = wasm.batch()) {
            for (let k = 0; k < n; k++) {
                wasm.record(k, out.refs, rec);
                const fast = rec.row ?? lineFastRow(out, chain, mem, rec.start, rec.end);
                walkLine(out, chain, options, ++this.line, mem, rec.start, rec.end, rec.terminated, base, fast);
            }
        }
    }
    /** `buf[pos..blockEnd)` (whole lines) by the JS fast path, on a latin1 view of the block. */
    jsBlock(buf, pos, blockEnd, base) {
        const { out, chain, options } = this;
        let text;
        try {
            text = buf.toString('latin1', pos, blockEnd);
        }
        catch {
            text = undefined; // a line too long for one string: the slow path reports it
        }
        let a = pos;
        while (a < blockEnd) {
            const nl = buf.indexOf(0x0a, a);
            const terminated = nl >= 0 && nl < blockEnd;
            const b = terminated ? nl : blockEnd;
            const fast = b > a && text !== undefined ? fastRow(text, a - pos, b - pos, expectedPrev(out, chain), out.refs) : undefined;
            walkLine(out, chain, options, ++this.line, buf, a, b, terminated, base, fast);
            a = b + 1;
        }
    }
    finish() {
        const { out, chain } = this;
        out.lines = this.line;
        if (out.rows > 0)
            out.last = { seq: chain.expectedSeq - 1, step_hash: chain.prevHash };
        return out;
    }
}
/** The link fastRow may take on trust (it needs no hex check when it matches). */
function expectedPrev(out, chain) {
    return out.first === undefined ? undefined : chain.prevHash;
}
/** fastRow on one line the WebAssembly scanner left to JS. */
function lineFastRow(out, chain, buf, a, b) {
    if (b <= a)
        return undefined;
    let text;
    try {
        text = buf.toString('latin1', a, b);
    }
    catch {
        return undefined; // a line too long for one string: the slow path reports it
    }
    return fastRow(text, 0, b - a, expectedPrev(out, chain), out.refs);
}
function walkLine(out, chain, options, line, buf, a, b, terminated, base, fast) {
    let row;
    let computed = '';
    let canonical = true;
    if (fast !== undefined) {
        row = fast;
        computed = fast.computedHash;
    }
    if (row === undefined) {
        const read = b === a ? { kind: 'malformed', reason: 'empty line' } : readRowLine(buf.subarray(a, b));
        if (read.kind === 'malformed') {
            out.faults.push({ line, kind: 'malformed_json', message: read.reason });
            out.firstMalformed ??= { line, offset: base + a, reason: read.reason };
            return;
        }
        row = read.row;
        computed = read.computedHash;
        canonical = read.canonical;
        if (out.refs !== undefined)
            out.refs.push(...read.row.blob_refs);
    }
    if (out.firstMalformed !== undefined)
        out.rowAfterMalformed ??= line;
    if (out.first === undefined) {
        out.first = { line, seq: row.seq, prev_hash: row.prev_hash };
        chain.expectedSeq = row.seq;
        chain.prevHash = row.prev_hash;
    }
    const faults = chain.check(line, row, computed);
    if (faults.length > 0)
        out.faults.push(...faults);
    if (options.strict && !canonical) {
        out.faults.push({ line, kind: 'non_canonical', message: 'line bytes are not the canonical encoding of the row' });
    }
    if (options.strict && !terminated) {
        out.faults.push({ line, kind: 'non_canonical', message: 'last line has no trailing newline' });
    }
    out.rows++;
    out.lastRowEnd = terminated ? base + b + 1 : base + b;
    out.lastRowUnterminated = !terminated;
}

;// CONCATENATED MODULE: ./src/journal/parallel.ts





const TAG = 'stepchain-journal-chunk';
/** Below this a slice is not worth a thread's start-up (~30 ms). */
const MIN_PARALLEL_BYTES = 8 * 1024 * 1024;
/** Slices per thread when threads share the work, and the smallest slice worth a claim. */
const SLICES_PER_THREAD = 8;
const MIN_SLICE_BYTES = 1024 * 1024;
let workerEntry;
/** Called by a bundle's entry with its own path, so slices can run in worker threads. */
function setChunkWorkerEntry(file) {
    workerEntry = file;
}
function isChunkJob(data) {
    return typeof data === 'object' && data !== null && data.tag === TAG;
}
function walkSlice(source, from, to, options) {
    if (source.kind === 'file')
        return scanFileChunk(source.path, from, to, options);
    return scanChunk(Buffer.from(source.buffer, from, to - from), 0, to - from, from, options);
}
/** Takes the next slice no thread has taken, or -1. */
function claim(claims, count) {
    const k = Atomics.add(claims, 0, 1);
    if (k >= count)
        return -1;
    Atomics.store(claims, k + 1, 1);
    return k;
}
/** The body of a worker thread: walk slices while there are any, post the summaries, signal. */
function runChunkJob(job) {
    const reply = { results: [] };
    const claims = new Int32Array(job.claims);
    adoptWasmModule(job.wasm);
    try {
        for (let k = claim(claims, job.slices.length); k >= 0; k = claim(claims, job.slices.length)) {
            const [from, to] = job.slices[k];
            reply.results.push([k, walkSlice(job.source, from, to, job.options)]);
        }
    }
    catch (e) {
        reply.error = e.message; // the caller walks what is missing
    }
    job.port.postMessage(reply);
    const flag = new Int32Array(job.done);
    Atomics.store(flag, 0, 1);
    Atomics.notify(flag, 0);
}
function threads(env) {
    const forced = Number(env.STEPCHAIN_THREADS);
    if (Number.isInteger(forced) && forced >= 1)
        return Math.min(forced, 16);
    return Math.max(1, Math.min((0,external_node_os_namespaceObject.availableParallelism)(), 8));
}
/** The offset just after the first newline at or after `at` (or `end`). */
function nextLineStart(source, at, end) {
    if (source.kind === 'bytes') {
        const nl = source.bytes.indexOf(0x0a, at);
        return nl < 0 || nl >= end ? end : nl + 1;
    }
    const fd = (0,external_node_fs_namespaceObject.openSync)(source.path, 'r');
    try {
        const window = Buffer.allocUnsafe(64 * 1024);
        for (let pos = at; pos < end; pos += window.length) {
            const n = (0,external_node_fs_namespaceObject.readSync)(fd, window, 0, Math.min(window.length, end - pos), pos);
            if (n === 0)
                break;
            const nl = window.subarray(0, n).indexOf(0x0a);
            if (nl >= 0)
                return pos + nl + 1;
        }
        return end;
    }
    finally {
        (0,external_node_fs_namespaceObject.closeSync)(fd);
    }
}
/** Cuts [start, end) into up to n line-aligned slices. */
function plan(source, start, end, n) {
    const cuts = [start];
    for (let k = 1; k < n; k++) {
        const nominal = start + Math.floor(((end - start) * k) / n);
        const cut = nextLineStart(source, Math.max(nominal, cuts[cuts.length - 1]), end);
        if (cut > cuts[cuts.length - 1] && cut < end)
            cuts.push(cut);
    }
    cuts.push(end);
    return cuts.slice(0, -1).map((c, i) => [c, cuts[i + 1]]);
}
/**
 * Walks bytes [start, end) of a journal in slices. `env` may force the thread
 * count (STEPCHAIN_THREADS) and the parallel threshold (STEPCHAIN_PARALLEL_MIN_BYTES),
 * and STEPCHAIN_WASM=0 turns the WebAssembly line scanner off (the JS fast path then runs).
 */
function scanSlices(source, start, end, options, env = process.env) {
    const minBytes = Number(env.STEPCHAIN_PARALLEL_MIN_BYTES ?? MIN_PARALLEL_BYTES);
    if (env.STEPCHAIN_WASM === '0')
        options = { ...options, wasm: false };
    const n = end - start >= minBytes ? threads(env) : 1;
    const slices = plan(source, start, end, n);
    const inline = (from, to) => {
        if (source.kind === 'bytes')
            return scanChunk(source.bytes, from, to, 0, options);
        return scanFileChunk(source.path, from, to, options);
    };
    if (slices.length === 1 || workerEntry === undefined)
        return slices.map(([a, b]) => inline(a, b));
    // Several slices per thread, taken from a shared counter.
    const count = Math.max(n, Math.min(n * SLICES_PER_THREAD, Math.floor((end - start) / MIN_SLICE_BYTES)));
    const work = plan(source, start, end, count);
    let shared;
    if (source.kind === 'bytes') {
        shared = new SharedArrayBuffer(source.bytes.length);
        Buffer.from(shared).set(source.bytes);
    }
    const sliceSource = shared
        ? { kind: 'shared', buffer: shared, length: shared.byteLength }
        : { kind: 'file', path: source.path };
    const claimsBuffer = new SharedArrayBuffer(4 * (work.length + 1));
    const claims = new Int32Array(claimsBuffer);
    const wasm = options.wasm === false ? undefined : wasmModule();
    const jobs = [];
    for (let k = 1; k < slices.length; k++) {
        const done = new SharedArrayBuffer(4);
        const { port1, port2 } = new external_node_worker_threads_namespaceObject.MessageChannel();
        const job = {
            tag: TAG,
            source: sliceSource,
            slices: work,
            claims: claimsBuffer,
            options,
            wasm,
            done,
            port: port2,
        };
        try {
            const worker = new external_node_worker_threads_namespaceObject.Worker(workerEntry, { workerData: job, transferList: [port2], stdout: false, stderr: false });
            worker.unref();
            jobs.push({ worker, done, port: port1 });
        }
        catch {
            port1.close(); // no thread (resources, or a module that cannot be sent): this one does more
            break;
        }
    }
    const results = new Array(work.length);
    for (let k = claim(claims, work.length); k >= 0; k = claim(claims, work.length))
        results[k] = walkSlice(sliceSource, work[k][0], work[k][1], options);
    for (const j of jobs) {
        // A thread that never answers (it could not start) is not waited on forever:
        // the slices it took are walked here instead.
        const deadline = Date.now() + 20_000 + (end - start) / 5_000;
        const flag = new Int32Array(j.done);
        while (Atomics.load(flag, 0) === 0 && Date.now() < deadline)
            Atomics.wait(flag, 0, 0, 200);
        const msg = (0,external_node_worker_threads_namespaceObject.receiveMessageOnPort)(j.port)?.message;
        j.port.close();
        void j.worker.terminate();
        for (const [k, summary] of msg?.results ?? [])
            results[k] = summary;
    }
    return work.map(([from, to], k) => results[k] ?? inline(from, to));
}

;// CONCATENATED MODULE: ./src/cli/io.ts


/**
 * One JSON document for `--json`: keys in the order the command built them, with
 * exact integers (bigint) and float-ness kept, so rows print exactly as stored.
 */
function jsonDocument(doc) {
    return encode(doc, { sortKeys: false, allowNonFinite: true });
}
/**
 * A reader that went away (`stepchain replay big | head -3`) ends the process
 * quietly, as git does: no EPIPE stack trace, exit status 141 (128 + SIGPIPE,
 * what a shell shows for git in that pipe). Installed once by the bin entry.
 */
function exitQuietlyOnClosedPipe() {
    const closed = (e) => e.code === 'EPIPE' || e.code === 'ERR_STREAM_DESTROYED';
    process.stdout.on('error', (e) => {
        if (closed(e))
            process.exit(141);
        // Any other failure to write (a full disk behind `> file`) is one line, not a stack trace.
        process.stderr.write(`stepchain: cannot write the output: ${e.code ?? e.message}\n`);
        process.exit(1);
    });
    process.stderr.on('error', (e) => process.exit(closed(e) ? 141 : 1));
}
function processIO() {
    return {
        ...(process.stdout.isTTY && process.stdout.columns ? { columns: process.stdout.columns } : {}),
        out: (line) => process.stdout.write(`${line}\n`),
        err: (line) => process.stderr.write(`${line}\n`),
        json: (doc) => process.stdout.write(`${jsonDocument(doc)}\n`),
        readStdin: () => (0,external_node_fs_namespaceObject.readFileSync)(0),
        isTTY: Boolean(process.stdout.isTTY && process.stdin.isTTY),
        env: process.env,
        cwd: process.cwd(),
    };
}

;// CONCATENATED MODULE: external "node:util"
const external_node_util_namespaceObject = require("node:util");
;// CONCATENATED MODULE: ./src/errors.ts
/**
 * The library's errors carry the exit code a command ends with and one clear line
 * of message (naming the file and line where there is one). docs/format.md §6: 0 holds,
 * 1 does not hold, 2 usage or input error. The CLI and the Action print `message`
 * and never a stack trace.
 */
class errors_StepchainError extends Error {
    exitCode;
    name = 'StepchainError';
    /** The individual problems behind the message (a broken chain's faults), for `--json`. */
    details;
    constructor(message, exitCode) {
        super(message);
        this.exitCode = exitCode;
    }
}
/** `BrokenChainError` -> `broken_chain_error`. */
function snakeName(name) {
    return name.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();
}
/**
 * The one JSON document a command prints for an error under `--json`:
 * `{"ok": false, "error": {"type", "message", "exit_code", "faults"?}}`. An
 * error that is not a StepchainError is `internal_error` (exit 1).
 */
function errorDocument(e) {
    if (e instanceof errors_StepchainError) {
        return {
            ok: false,
            error: {
                type: snakeName(e.name),
                message: e.message,
                exit_code: e.exitCode,
                ...(e.details === undefined ? {} : { faults: e.details }),
            },
        };
    }
    const message = e instanceof Error ? e.message : String(e);
    return { ok: false, error: { type: 'internal_error', message, exit_code: 1 } };
}
/** Bad arguments, a missing or unreadable file, a bad id or key: exit 2. */
class errors_InputError extends errors_StepchainError {
    name = 'InputError';
    constructor(message) {
        super(message, 2);
    }
}
/** Something checked does not hold (or an operation was refused for integrity reasons): exit 1. */
class errors_IntegrityError extends errors_StepchainError {
    name = 'IntegrityError';
    constructor(message) {
        super(message, 1);
    }
}
/** The file and 1-based line a problem was found at, as `file:line`. */
function at(file, line) {
    return line === undefined || line === null ? file : `${file}:${line}`;
}

;// CONCATENATED MODULE: ./src/cli/suggest.ts
/**
 * "Did you mean": the closest known word to a typo, by edit distance
 * (Damerau-Levenshtein, optimal string alignment: an insertion, deletion,
 * substitution or swap of two neighbours costs 1), so `verfy` finds `verify`
 * and `--promt` finds `--prompt`.
 */
/** The edit distance between two strings (optimal string alignment). */
function editDistance(a, b) {
    const m = a.length;
    const n = b.length;
    // Three rolling rows: the swap rule looks two rows back.
    let prev2 = new Array(n + 1).fill(0);
    let prev = Array.from({ length: n + 1 }, (_, j) => j);
    for (let i = 1; i <= m; i++) {
        const cur = new Array(n + 1).fill(0);
        cur[0] = i;
        for (let j = 1; j <= n; j++) {
            const cost = a[i - 1] === b[j - 1] ? 0 : 1;
            let d = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost);
            if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
                d = Math.min(d, prev2[j - 2] + 1);
            cur[j] = d;
        }
        prev2 = prev;
        prev = cur;
    }
    return prev[n];
}
/**
 * The known words closest to `word`, nearest first: within a third of the
 * word's length (at least 1, at most 3 edits), or a known word that starts
 * with it (`rec` for `record`). Empty when nothing is close.
 */
function closest(word, known, max = 3) {
    const limit = Math.min(3, Math.max(1, Math.floor(word.length / 3)));
    const scored = [];
    for (const w of new Set(known)) {
        if (w === word)
            continue;
        const d = editDistance(word.toLowerCase(), w.toLowerCase());
        if (d <= limit)
            scored.push({ w, d });
        else if (word.length >= 2 && w.startsWith(word))
            scored.push({ w, d: limit + 1 });
    }
    scored.sort((x, y) => x.d - y.d || x.w.localeCompare(y.w));
    // Only the nearest: `--promt` is `--prompt`, not also `--root`.
    const best = scored[0]?.d;
    return scored
        .filter((s) => s.d === best)
        .slice(0, max)
        .map((s) => s.w);
}
/** `; did you mean "x"?` (or `"x" or "y"`), or '' when nothing is close. */
function didYouMean(word, known, quote = (w) => `"${w}"`) {
    const c = closest(word, known, 2);
    if (c.length === 0)
        return '';
    return `; did you mean ${c.map(quote).join(' or ')}?`;
}

;// CONCATENATED MODULE: ./src/cli/args.ts



/** `--name`, or `-o, --name` when it has a short alias. */
function optionLabel(name, spec) {
    return spec.short === undefined ? `--${name}` : `-${spec.short}, --${name}`;
}
/**
 * A strict argument parser over node:util `parseArgs` (its tokens: `--x=v` and
 * `--x v`, `-o v` and `-ov`, `--` ends options, a lone `-` is a positional for
 * stdin). On top of it: unknown options are usage errors with the closest known
 * option suggested, a flag given a value, a value option given twice or without
 * its value are errors. A value option takes the next argument whatever it looks
 * like (`--prompt -x` is the prompt `-x`), as git does.
 */
function parseArgs(argv, spec, command) {
    const options = {};
    for (const [name, s] of Object.entries(spec)) {
        options[name] = { type: s.kind === 'flag' ? 'boolean' : 'string', ...(s.short ? { short: s.short } : {}) };
    }
    const { tokens } = (0,external_node_util_namespaceObject.parseArgs)({ args: argv, options, strict: false, allowPositionals: true, tokens: true });
    const out = { positionals: [], flags: new Set(), values: new Map(), lists: new Map() };
    const known = Object.keys(spec).map((n) => `--${n}`);
    for (const t of tokens) {
        if (t.kind === 'positional') {
            out.positionals.push(t.value);
            continue;
        }
        if (t.kind === 'option-terminator')
            continue;
        const s = spec[t.name];
        if (s === undefined) {
            const raw = t.rawName.startsWith('--') ? t.rawName : t.rawName.length === 2 ? t.rawName : `--${t.name}`;
            throw new errors_InputError(`${command}: unknown option ${raw}${didYouMean(raw, known, (w) => w)} (see \`stepchain ${command} --help\`)`);
        }
        const label = `--${t.name}`;
        if (s.kind === 'flag') {
            if (t.value !== undefined)
                throw new errors_InputError(`${command}: ${label} takes no value`);
            out.flags.add(t.name);
            continue;
        }
        if (t.value === undefined)
            throw new errors_InputError(`${command}: ${label} needs a value`);
        if (s.kind === 'value') {
            if (out.values.has(t.name))
                throw new errors_InputError(`${command}: ${label} given twice`);
            out.values.set(t.name, t.value);
        }
        else {
            out.lists.set(t.name, [...(out.lists.get(t.name) ?? []), t.value]);
        }
    }
    return out;
}
/** Whether `--help` or `-h` comes before any `--` (and is not the value of an option). */
function wantsHelp(argv, spec) {
    return flagBeforeTerminator(argv, spec, (t) => t.name === 'help' || t.rawName === '-h');
}
/** Whether `--json` is among the options (before any `--`), whatever else is wrong with the line. */
function wantsJson(argv, spec) {
    if (spec.json === undefined)
        return false;
    return flagBeforeTerminator(argv, spec, (t) => t.name === 'json' && t.value === undefined);
}
function flagBeforeTerminator(argv, spec, match) {
    const options = {};
    for (const [name, s] of Object.entries(spec)) {
        if (name === 'help')
            continue;
        options[name] = { type: s.kind === 'flag' ? 'boolean' : 'string', ...(s.short ? { short: s.short } : {}) };
    }
    try {
        const { tokens } = (0,external_node_util_namespaceObject.parseArgs)({ args: argv, options, strict: false, allowPositionals: true, tokens: true });
        for (const t of tokens) {
            if (t.kind === 'option-terminator')
                return false;
            if (t.kind === 'option' && match(t))
                return true;
        }
    }
    catch {
        /* not parseable at all: no */
    }
    return false;
}
/** Exactly `count` positionals (named for the error message). */
function expectPositionals(args, names, command, optional = 0) {
    const min = names.length - optional;
    if (args.positionals.length < min) {
        throw new errors_InputError(`${command}: missing ${names
            .slice(args.positionals.length)
            .map((n) => `<${n}>`)
            .join(' ')} (see \`stepchain ${command} --help\`)`);
    }
    if (args.positionals.length > names.length) {
        throw new errors_InputError(`${command}: unexpected argument ${JSON.stringify(args.positionals[names.length])}`);
    }
    return args.positionals;
}

;// CONCATENATED MODULE: external "node:path"
const external_node_path_namespaceObject = require("node:path");
var external_node_path_default = /*#__PURE__*/__nccwpck_require__.n(external_node_path_namespaceObject);
;// CONCATENATED MODULE: ./src/util/fs.ts


/**
 * Writes every byte (a single write(2) may be short on some file systems), at
 * `position` when given, else at the file offset (the end, for O_APPEND).
 */
function writeAll(fd, bytes, position) {
    let off = 0;
    while (off < bytes.length) {
        off += (0,external_node_fs_namespaceObject.writeSync)(fd, bytes, off, bytes.length - off, position === undefined ? null : position + off);
    }
}
/** fsync a directory so a created or renamed entry survives a crash. */
function fsyncDir(dir) {
    let fd;
    try {
        fd = (0,external_node_fs_namespaceObject.openSync)(dir, 'r');
        (0,external_node_fs_namespaceObject.fsyncSync)(fd);
    }
    catch {
        /* some file systems refuse to fsync directories; the data itself was synced */
    }
    finally {
        if (fd !== undefined)
            (0,external_node_fs_namespaceObject.closeSync)(fd);
    }
}
/** `length` bytes from `position` of an open file (fewer at end of file). */
function readRange(fd, position, length) {
    const buf = Buffer.allocUnsafe(length);
    let off = 0;
    while (off < length) {
        const n = (0,external_node_fs_namespaceObject.readSync)(fd, buf, off, length - off, position + off);
        if (n === 0)
            break;
        off += n;
    }
    return buf.subarray(0, off);
}
/** Whether a path is a directory, a regular file, or neither (missing, or something else). */
function pathKind(p) {
    try {
        const st = (0,external_node_fs_namespaceObject.statSync)(p);
        return st.isDirectory() ? 'dir' : st.isFile() ? 'file' : undefined;
    }
    catch {
        return undefined;
    }
}
/**
 * Appends whole lines with one write(2) to a file opened O_APPEND; when
 * `durable`, fsyncs the file, and its directory when the file was created.
 */
function appendDurably(file, data, durable) {
    const fd = (0,external_node_fs_namespaceObject.openSync)(file, 'a', 0o644);
    let created;
    try {
        created = (0,external_node_fs_namespaceObject.fstatSync)(fd).size === 0;
        writeAll(fd, data);
        if (durable)
            (0,external_node_fs_namespaceObject.fsyncSync)(fd);
    }
    finally {
        (0,external_node_fs_namespaceObject.closeSync)(fd);
    }
    if (created && durable)
        fsyncDir(external_node_path_default().dirname(file));
}
/**
 * Recovery of a torn tail (docs/format.md §2): copies the bytes from `from` to the end of
 * the file to `<file>.torn-<unix ms>` beside it (a fresh name, fsync'ed when
 * `durable`), then truncates the file at `from`. Returns the side file's path.
 */
function moveTornTailAside(file, from, durable, mode = 0o644) {
    const fd = (0,external_node_fs_namespaceObject.openSync)(file, 'r+');
    try {
        const size = (0,external_node_fs_namespaceObject.fstatSync)(fd).size;
        const torn = readRange(fd, from, size - from);
        const base = `${file}.torn-${Date.now()}`;
        for (let n = 0;; n++) {
            const side = n === 0 ? base : `${base}-${n}`;
            let sfd;
            try {
                sfd = (0,external_node_fs_namespaceObject.openSync)(side, 'wx', mode);
            }
            catch (e) {
                if (e.code === 'EEXIST')
                    continue;
                throw e;
            }
            try {
                writeAll(sfd, torn);
                if (durable)
                    (0,external_node_fs_namespaceObject.fsyncSync)(sfd);
            }
            finally {
                (0,external_node_fs_namespaceObject.closeSync)(sfd);
            }
            (0,external_node_fs_namespaceObject.ftruncateSync)(fd, from);
            if (durable) {
                (0,external_node_fs_namespaceObject.fsyncSync)(fd);
                fsyncDir(external_node_path_default().dirname(file));
            }
            return side;
        }
    }
    finally {
        (0,external_node_fs_namespaceObject.closeSync)(fd);
    }
}
/** Writes the newline a complete last line lost (its writer died between the two). */
function finishLastLine(file, at, durable) {
    const fd = (0,external_node_fs_namespaceObject.openSync)(file, 'r+');
    try {
        writeAll(fd, Buffer.from('\n'), at);
        if (durable)
            (0,external_node_fs_namespaceObject.fsyncSync)(fd);
    }
    finally {
        (0,external_node_fs_namespaceObject.closeSync)(fd);
    }
}

;// CONCATENATED MODULE: ./src/journal/cas.ts





/** The content-addressed blob store: `<dir>/<first two hex>/<sha256 hex>`. */
class Cas {
    dir;
    durable;
    constructor(dir, durable = true) {
        this.dir = dir;
        this.durable = durable;
    }
    pathOf(digest) {
        if (!isSha256Hex(digest))
            throw new errors_InputError(`not a SHA-256 digest: ${JSON.stringify(digest)}`);
        return external_node_path_default().join(this.dir, digest.slice(0, 2), digest);
    }
    has(digest) {
        try {
            return (0,external_node_fs_namespaceObject.statSync)(this.pathOf(digest)).isFile();
        }
        catch {
            return false;
        }
    }
    /** The blob's bytes, or undefined when it is not stored. */
    get(digest) {
        try {
            return (0,external_node_fs_namespaceObject.readFileSync)(this.pathOf(digest));
        }
        catch {
            return undefined;
        }
    }
    /** Stores bytes (write to a temporary name, fsync, rename) and returns their digest. */
    put(bytes) {
        const digest = sha256Hex(bytes);
        const file = this.pathOf(digest);
        try {
            if ((0,external_node_fs_namespaceObject.statSync)(file).size === bytes.length)
                return digest;
        }
        catch {
            /* not stored yet */
        }
        const dir = external_node_path_default().dirname(file);
        (0,external_node_fs_namespaceObject.mkdirSync)(dir, { recursive: true });
        const tmp = external_node_path_default().join(dir, `.tmp-${process.pid}-${Math.random().toString(36).slice(2)}`);
        const fd = (0,external_node_fs_namespaceObject.openSync)(tmp, 'wx', 0o644);
        try {
            writeAll(fd, bytes);
            if (this.durable)
                (0,external_node_fs_namespaceObject.fsyncSync)(fd);
        }
        catch (e) {
            (0,external_node_fs_namespaceObject.closeSync)(fd);
            (0,external_node_fs_namespaceObject.unlinkSync)(tmp);
            throw e;
        }
        (0,external_node_fs_namespaceObject.closeSync)(fd);
        (0,external_node_fs_namespaceObject.renameSync)(tmp, file);
        if (this.durable)
            fsyncDir(dir);
        return digest;
    }
}

;// CONCATENATED MODULE: ./src/util/lock.ts



const sleeper = new Int32Array(new SharedArrayBuffer(4));
function sleepMs(ms) {
    Atomics.wait(sleeper, 0, 0, ms);
}
function isAlive(pid) {
    try {
        process.kill(pid, 0);
        return true;
    }
    catch (e) {
        return e.code === 'EPERM';
    }
}
function readOwner(file) {
    try {
        return (0,external_node_fs_namespaceObject.readFileSync)(file, 'utf8');
    }
    catch {
        return undefined;
    }
}
function isStale(file, owner) {
    const [pid, host] = owner.split(' ');
    const n = Number(pid);
    if (!Number.isInteger(n) || n <= 0) {
        // Not ours (we create lock files whole): stale once it has been there a while.
        try {
            return Date.now() - (0,external_node_fs_namespaceObject.statSync)(file).mtimeMs > 10_000;
        }
        catch {
            return false;
        }
    }
    return host === (0,external_node_os_namespaceObject.hostname)() && !isAlive(n);
}
function acquireLock(file, options = {}) {
    const timeout = options.timeoutMs ?? 30_000;
    const deadline = Date.now() + timeout;
    const me = `${process.pid} ${(0,external_node_os_namespaceObject.hostname)()} ${Math.random().toString(36).slice(2)}`;
    let delay = 1;
    const tmp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
    (0,external_node_fs_namespaceObject.writeFileSync)(tmp, me, { mode: 0o644 });
    try {
        for (;;) {
            if (tryLink(tmp, file))
                return releaser(file, me);
            const owner = readOwner(file);
            if (owner !== undefined && isStale(file, owner)) {
                breakStale(file, owner);
                continue;
            }
            if (Date.now() > deadline) {
                throw new errors_IntegrityError(`${file}: locked by another writer (${owner?.split(' ').slice(0, 2).join(' on ') ?? 'unknown'}) for over ${timeout} ms`);
            }
            sleepMs(delay);
            delay = Math.min(delay * 2, 50);
        }
    }
    finally {
        try {
            (0,external_node_fs_namespaceObject.unlinkSync)(tmp);
        }
        catch {
            /* already gone */
        }
    }
}
function tryLink(tmp, file) {
    try {
        (0,external_node_fs_namespaceObject.linkSync)(tmp, file);
        return true;
    }
    catch (e) {
        if (e.code === 'EEXIST')
            return false;
        throw e;
    }
}
function releaser(file, me) {
    return () => {
        // Only remove the lock if it is still ours.
        if (readOwner(file) === me) {
            try {
                (0,external_node_fs_namespaceObject.unlinkSync)(file);
            }
            catch {
                /* already gone */
            }
        }
    };
}
function breakStale(file, owner) {
    const aside = `${file}.stale-${process.pid}-${Math.random().toString(36).slice(2)}`;
    try {
        (0,external_node_fs_namespaceObject.renameSync)(file, aside);
    }
    catch {
        return; // someone else broke or released it
    }
    const taken = readOwner(aside);
    if (taken === owner) {
        (0,external_node_fs_namespaceObject.unlinkSync)(aside);
        return;
    }
    // We moved a lock that was taken after we looked: put it back unless another was made.
    try {
        (0,external_node_fs_namespaceObject.linkSync)(aside, file);
    }
    catch {
        /* lost race: another lock was made meanwhile */
    }
    try {
        (0,external_node_fs_namespaceObject.unlinkSync)(aside);
    }
    catch {
        /* already gone */
    }
}

;// CONCATENATED MODULE: ./src/util/ids.ts

const ID = /^[A-Za-z0-9_.-]{1,128}$/;
/** Whether `id` is a safe single path segment (docs/format.md §2): never `.` or `..`. */
function isSafeId(id) {
    return ID.test(id) && id !== '.' && id !== '..';
}
/** Refuses an unsafe agent, run, session or fork id before any path is built from it. */
function assertSafeId(id, what = 'id') {
    if (!isSafeId(id)) {
        throw new errors_InputError(`unsafe ${what} ${JSON.stringify(id)}: ids are 1-128 characters of A-Z a-z 0-9 _ . - and never "." or ".."`);
    }
    return id;
}

;// CONCATENATED MODULE: ./src/journal/layout.ts


/** The on-disk layout of docs/format.md §2, relative to a project root. */
const JOURNAL_FILE = '000000.jsonl';
function runtimeDir(root) {
    return external_node_path_default().join(root, '.sdd', 'runtime');
}
function journalsDir(root) {
    return external_node_path_default().join(runtimeDir(root), 'journal');
}
/** `<root>/.sdd/runtime/journal/<agent_id>/` (the id is validated first). */
function journalDir(root, agentId) {
    return external_node_path_default().join(journalsDir(root), assertSafeId(agentId, 'agent id'));
}
function journalFile(root, agentId) {
    return external_node_path_default().join(journalDir(root, agentId), JOURNAL_FILE);
}
function casDir(root) {
    return external_node_path_default().join(runtimeDir(root), 'cas');
}

;// CONCATENATED MODULE: ./src/journal/recover.ts


const GENESIS = { offset: 0, head: ZERO_HASH, steps: 0 };
/** Refusal to open: names the file, the line and the remedy. Exit 1. */
class JournalRecoveryError extends errors_IntegrityError {
    file;
    line;
    kind;
    name = 'JournalRecoveryError';
    constructor(file, line, kind, detail) {
        super(`${file}:${line}: ${kind}: ${detail}; refusing to append. ` +
            `Remedy: move the journal aside (mv ${file} ${file}.corrupt) so a fresh chain can start, ` +
            `and keep it for \`stepchain verify\``);
        this.file = file;
        this.line = line;
        this.kind = kind;
    }
}

;// CONCATENATED MODULE: ./src/journal/stitch.ts



/** Walks the slices in order, checking each slice's first row against the previous slice's last. */
function eachSlice(slices, from, visit) {
    const chain = new ChainChecker();
    chain.prevHash = from.head;
    chain.expectedSeq = from.steps;
    let steps = from.steps;
    let head = from.head;
    let lineBase = 0;
    for (const s of slices) {
        const boundary = s.first === undefined ? [] : chain.link(lineBase + s.first.line, s.first);
        visit(s, lineBase, boundary);
        if (s.last !== undefined) {
            chain.expectedSeq = s.last.seq + 1;
            chain.prevHash = s.last.step_hash;
            head = s.last.step_hash;
        }
        steps += s.rows;
        lineBase += s.lines;
    }
    return { head, steps };
}
/** All faults of a verify, in line order, with absolute line numbers. */
function stitchFaults(slices) {
    const faults = [];
    const end = eachSlice(slices, { head: ZERO_HASH, steps: 0 }, (s, lineBase, boundary) => {
        let placed = false;
        for (const f of s.faults) {
            if (!placed && s.first !== undefined && f.line !== null && f.line >= s.first.line) {
                faults.push(...boundary);
                placed = true;
            }
            faults.push({ ...f, line: f.line === null ? null : f.line + lineBase });
        }
        if (!placed)
            faults.push(...boundary);
    });
    return { faults, head: end.steps > 0 ? end.head : ZERO_HASH, steps: end.steps };
}
/** The blob refs of all slices: first-occurrence order, no duplicates. */
function stitchRefs(slices) {
    const seen = new Set();
    for (const s of slices)
        for (const r of s.refs ?? [])
            seen.add(r);
    return [...seen];
}
/**
 * Recovery on open over slices (docs/format.md §2, fail-closed): the first chain fault is
 * an error; a malformed line followed by any well-formed row is interior
 * corruption; malformed lines after the last row are a torn tail.
 */
function stitchRecovery(file, slices, from) {
    let firstBad;
    let validEnd = from.offset;
    let unterminated = false;
    eachSlice(slices, from, (s, lineBase, boundary) => {
        const line = (rel) => from.steps + lineBase + rel;
        if (firstBad !== undefined && s.first !== undefined) {
            throw new JournalRecoveryError(file, firstBad.line, 'malformed_json', `${firstBad.reason} (interior corruption: a well-formed row follows at line ${line(s.first.line)})`);
        }
        if (s.firstMalformed !== undefined && s.rowAfterMalformed !== undefined) {
            throw new JournalRecoveryError(file, line(s.firstMalformed.line), 'malformed_json', `${s.firstMalformed.reason} (interior corruption: a well-formed row follows at line ${line(s.rowAfterMalformed)})`);
        }
        const chainFaults = [
            ...boundary.map((f) => ({ ...f, line: (f.line ?? 0) - lineBase })),
            ...s.faults.filter((f) => f.kind !== 'malformed_json'),
        ];
        chainFaults.sort((a, b) => (a.line ?? 0) - (b.line ?? 0));
        const f = chainFaults[0];
        if (f !== undefined)
            throw new JournalRecoveryError(file, line(f.line ?? 0), f.kind, f.message);
        if (s.rows > 0) {
            validEnd = s.lastRowEnd;
            unterminated = s.lastRowUnterminated;
        }
        if (s.firstMalformed !== undefined)
            firstBad ??= { ...s.firstMalformed, line: line(s.firstMalformed.line) };
    });
    const { head, steps } = eachSlice(slices, from, () => undefined);
    const result = { validEnd, head, steps };
    // A final row without its newline ends at validEnd; the caller completes the line.
    if (unterminated)
        result.unterminatedRowEnd = validEnd;
    if (firstBad !== undefined)
        result.tornFrom = validEnd;
    return result;
}

;// CONCATENATED MODULE: ./src/journal/verify.ts








/** Calls `fn(start, end, line, terminated)` for each line of `buf` (end excludes the newline). */
function forEachLine(buf, fn) {
    let start = 0;
    let line = 1;
    while (start < buf.length) {
        const nl = buf.indexOf(0x0a, start);
        const end = nl < 0 ? buf.length : nl;
        fn(start, end, line, nl >= 0);
        start = end + 1;
        line++;
    }
}
/** The whole-journal faults that follow the walk: an empty file, a head other than expected. */
function addJournalFaults(errors, size, head, options) {
    if (size === 0)
        errors.push({ line: null, kind: 'empty_journal', message: 'journal has no steps' });
    if (options.expectedHead !== undefined && options.expectedHead !== head) {
        errors.push({ line: null, kind: 'head_mismatch', message: `head ${head}, expected ${options.expectedHead}` });
    }
}
/** The plain lossless walk, keeping every well-formed row (the sliced fast walk is checked against it). */
function walk(buf, options) {
    const chain = new ChainChecker();
    const errors = [];
    const entries = [];
    forEachLine(buf, (start, end, line, terminated) => {
        const bytes = buf.subarray(start, end);
        if (bytes.length === 0) {
            errors.push({ line, kind: 'malformed_json', message: 'empty line' });
            return;
        }
        const read = readRowLine(bytes);
        if (read.kind === 'malformed') {
            errors.push({ line, kind: 'malformed_json', message: read.reason });
            return;
        }
        errors.push(...chain.check(line, read.row, read.computedHash));
        if (options.strict && !read.canonical) {
            errors.push({ line, kind: 'non_canonical', message: 'line bytes are not the canonical encoding of the row' });
        }
        if (options.strict && !terminated) {
            errors.push({ line, kind: 'non_canonical', message: 'last line has no trailing newline' });
        }
        entries.push({ line, row: read.row, bytes, canonical: read.canonical });
    });
    const head = chain.steps > 0 ? chain.head : ZERO_HASH;
    addJournalFaults(errors, buf.length, head, options);
    return { ok: errors.length === 0, head_hash: head, steps: chain.steps, errors, entries };
}
/**
 * Verifies a journal: every fault with its line and kind (docs/format.md §2). Canonical
 * rows take the fast path (hashed from their bytes); large journals are walked
 * in parallel slices.
 */
function verifySource(source, size, options, env, refs) {
    const slices = scanSlices(source, 0, size, { strict: options.strict ?? false, collectRefs: refs !== undefined }, env);
    const { faults, head, steps } = stitchFaults(slices);
    if (refs !== undefined)
        refs.push(...stitchRefs(slices));
    addJournalFaults(faults, size, head, options);
    return { ok: faults.length === 0, head_hash: head, steps, errors: faults };
}
/** Verifies journal bytes (e.g. a receipt's journal member). */
function verifyJournalBytes(buf, options = {}, env) {
    return verifySource({ kind: 'bytes', bytes: buf }, buf.length, options, env);
}
/** Verifies journal bytes and collects the rows' blob refs (first-occurrence order, unique). */
function verifyJournalBytesWithRefs(buf, options = {}, env) {
    const refs = [];
    return { ...verifySource({ kind: 'bytes', bytes: buf }, buf.length, options, env, refs), blob_refs: refs };
}
/**
 * A verified journal in canonical form, for receipts: the canonical lines (the
 * file's own bytes when every line already is canonical, else each row
 * re-encoded) and the blob refs. `result.ok` false means the chain does not
 * verify (the bytes are then not to be used).
 */
function readCanonicalJournal(file) {
    const raw = readJournalFileBytes(file);
    const strict = verifyJournalBytesWithRefs(raw, { strict: true });
    if (strict.ok) {
        const { blob_refs, ...result } = strict;
        return { result, bytes: raw, blob_refs };
    }
    const read = readJournalBytes(raw);
    const { entries, ...result } = read;
    if (!read.ok)
        return { result, bytes: Buffer.alloc(0), blob_refs: [] };
    const nl = Buffer.from('\n');
    const parts = [];
    for (const e of entries)
        parts.push(e.canonical ? e.bytes : Buffer.from(encode_canonicalOfRead(row_rowValue(e.row)), 'utf8'), nl);
    return { result, bytes: Buffer.concat(parts), blob_refs: strict.blob_refs };
}
/** Reads and verifies journal bytes, keeping the well-formed rows. */
function readJournalBytes(buf, options = {}) {
    return walk(buf, options);
}
/** The size of a journal file; a missing path or one that is not a file is an input error. */
function statJournalFile(file) {
    let st;
    try {
        st = (0,external_node_fs_namespaceObject.statSync)(file);
    }
    catch {
        throw new errors_InputError(`${file}: no such journal file`);
    }
    if (!st.isFile())
        throw new errors_InputError(`${file}: not a regular file`);
    return st.size;
}
/** Reads a journal file's bytes; a missing or unreadable file is an input error. */
function readJournalFileBytes(file) {
    statJournalFile(file);
    try {
        return (0,external_node_fs_namespaceObject.readFileSync)(file);
    }
    catch (e) {
        throw new errors_InputError(`${file}: cannot read: ${e.code ?? e.message}`);
    }
}
function verifyJournalFile(file, options = {}, env) {
    const size = statJournalFile(file);
    try {
        return verifySource({ kind: 'file', path: file }, size, options, env);
    }
    catch (e) {
        const code = e.code;
        if (code !== undefined)
            throw new errors_InputError(`${file}: cannot read: ${code}`);
        throw e;
    }
}
function readJournalFile(file, options = {}) {
    return readJournalBytes(readJournalFileBytes(file), options);
}

;// CONCATENATED MODULE: ./src/journal/journal.ts















/** `<root>` of a journal at `<root>/.sdd/runtime/journal/<id>/000000.jsonl`, if it is laid out so. */
function projectRootOf(journalDirPath) {
    const parts = external_node_path_default().resolve(journalDirPath).split((external_node_path_default()).sep);
    const n = parts.length;
    if (n >= 5 && parts[n - 2] === 'journal' && parts[n - 3] === 'runtime' && parts[n - 4] === '.sdd') {
        return parts.slice(0, n - 4).join((external_node_path_default()).sep) || (external_node_path_default()).sep;
    }
    return undefined;
}
function nowSeconds() {
    return (performance.timeOrigin + performance.now()) / 1000;
}
/**
 * Checks a step before anything is written: JSON values must be writable (no
 * NaN or infinities), the input given once, a given input hash well-formed.
 */
function validateStep(s) {
    const model = checkWritable('model', s.model);
    const prompt = checkWritable('prompt', s.prompt);
    const tool_call = checkWritable('tool_call', s.tool_call);
    const tool_result = checkWritable('tool_result', s.tool_result);
    if (s.input !== undefined && s.inputHash !== undefined)
        throw new errors_InputError('give the input or its hash, not both');
    if (s.inputHash !== undefined && !isSha256Hex(s.inputHash)) {
        throw new errors_InputError(`input hash must be 64 lowercase hex digits, got ${JSON.stringify(s.inputHash)}`);
    }
    const ts = s.ts ?? nowSeconds();
    if (!Number.isFinite(ts))
        throw new errors_InputError('ts must be a finite number');
    return { model, prompt, tool_call, tool_result, ts };
}
function checkWritable(name, v) {
    if (v === undefined)
        return null;
    try {
        canonical(v);
    }
    catch (e) {
        if (e instanceof CanonicalEncodeError)
            throw new errors_InputError(`${name}: ${e.message}`);
        throw e;
    }
    return v;
}
/**
 * A per-step journal opened for appending. Opening takes the journal's lock,
 * revalidates the whole chain (fail-closed), moves a torn tail aside, and
 * releases the lock. Each append re-takes the lock, catches up on rows other
 * processes appended meanwhile (verifying them too), and writes one canonical
 * row with a single write.
 */
class Journal {
    dir;
    file;
    lockFile;
    cas;
    durable;
    lockTimeoutMs;
    state = GENESIS;
    constructor(dir, options) {
        this.dir = dir;
        this.file = external_node_path_default().join(dir, JOURNAL_FILE);
        this.lockFile = `${this.file}.lock`;
        this.durable = (options.durability ?? 'durable') === 'durable';
        this.lockTimeoutMs = options.lockTimeoutMs;
        const root = projectRootOf(dir);
        this.cas = options.cas ?? (root === undefined ? undefined : new Cas(casDir(root), this.durable));
    }
    /** Opens (creating the directory if needed) and recovers. Throws JournalRecoveryError on a bad chain. */
    static open(dir, options = {}) {
        const j = new Journal(dir, options);
        (0,external_node_fs_namespaceObject.mkdirSync)(dir, { recursive: true });
        j.locked(() => j.catchUp());
        return j;
    }
    /** The head (step_hash of the last row, or 64 zeros). */
    get head() {
        return this.state.head;
    }
    /** The number of steps in the chain. */
    get length() {
        return this.state.steps;
    }
    append(step) {
        return this.appendMany([step])[0];
    }
    /** Appends several steps with one write and (when durable) one fsync. */
    appendMany(steps) {
        const prepared = steps.map((s) => this.prepare(s));
        return this.locked(() => {
            this.catchUp();
            let prev = this.state.head;
            let seq = this.state.steps;
            const rows = [];
            for (const p of prepared) {
                const fields = { prev_hash: prev, ...p.fields };
                const row = { ...fields, seq, step_hash: computeStepHash(fields), blob_refs: p.refs, ts: p.ts };
                rows.push(row);
                prev = row.step_hash;
                seq++;
            }
            const data = Buffer.from(rows.map((r) => `${encodeRow(r)}\n`).join(''), 'utf8');
            appendDurably(this.file, data, this.durable);
            this.state = { offset: this.state.offset + data.length, head: prev, steps: seq };
            return rows;
        });
    }
    /** All rows, verified (a fault is reported in the result, nothing is hidden). */
    read(options = {}) {
        return readJournalFile(this.file, options);
    }
    prepare(s) {
        const { model, prompt, tool_call, tool_result, ts } = validateStep(s);
        const refs = [];
        const store = (bytes) => {
            if (this.cas === undefined)
                throw new errors_InputError(`${this.dir}: no blob store for this journal (give a CAS directory)`);
            const d = this.cas.put(bytes);
            if (!refs.includes(d))
                refs.push(d);
            return d;
        };
        // Blobs are stored before the row is written, so a row never names a missing blob.
        const input_hash = s.input !== undefined ? store(s.input) : (s.inputHash ?? sha256Hex(new Uint8Array()));
        for (const b of s.blobs ?? [])
            store(b);
        return { fields: { input_hash, model, prompt, tool_call, tool_result }, refs, ts };
    }
    locked(fn) {
        const release = acquireLock(this.lockFile, this.lockTimeoutMs === undefined ? {} : { timeoutMs: this.lockTimeoutMs });
        try {
            return fn();
        }
        finally {
            release();
        }
    }
    /** Under the lock: verify whatever was appended since we last looked, repair a torn tail. */
    catchUp() {
        let size;
        try {
            size = (0,external_node_fs_namespaceObject.statSync)(this.file).size;
        }
        catch (e) {
            if (e.code === 'ENOENT') {
                this.state = GENESIS;
                return;
            }
            throw new errors_InputError(`${this.file}: cannot open: ${e.code ?? e.message}`);
        }
        if (size === this.state.offset)
            return;
        // Grown: verify only the new bytes. Shrunk (truncated by someone): start over.
        const from = size > this.state.offset ? this.state : GENESIS;
        const slices = scanSlices({ kind: 'file', path: this.file }, from.offset, size, { strict: false });
        const t = stitchRecovery(this.file, slices, from);
        let end = t.validEnd;
        if (t.unterminatedRowEnd !== undefined) {
            // A complete, valid row whose newline never made it: finish the line.
            finishLastLine(this.file, t.unterminatedRowEnd, this.durable);
            end = t.unterminatedRowEnd + 1;
        }
        else if (t.tornFrom !== undefined) {
            moveTornTailAside(this.file, t.tornFrom, this.durable);
        }
        this.state = { offset: end, head: t.head, steps: t.steps };
    }
}

;// CONCATENATED MODULE: ./src/journal/locate.ts




/**
 * Resolves `<agent|dir|file>`. A name without a path separator that does not end
 * in `.jsonl` is an agent id, validated before it becomes a path and looked up
 * under `<root>/.sdd/runtime/journal/<id>/` (so `..` is an unsafe id, never the
 * parent directory; write `./name` for a directory in the current one). Anything
 * else is an existing journal directory or file. With `mustExist` a missing
 * journal file is an input error (exit 2); without it, an agent's journal may be
 * new, but a directory named by path must exist (no directories are made from
 * a path like `../x`).
 */
function resolveJournal(target, root, mustExist = true) {
    const isPath = target.includes('/') || target.includes((external_node_path_default()).sep) || target.endsWith('.jsonl');
    if (!isPath) {
        const dir = journalDir(root, target); // throws InputError for an unsafe id
        const file = external_node_path_default().join(dir, JOURNAL_FILE);
        if (mustExist && pathKind(file) !== 'file') {
            throw new errors_InputError(`no journal for agent ${JSON.stringify(target)} (looked for ${file}; to name a directory write ./${target})`);
        }
        return { file, dir, agentId: target };
    }
    const k = pathKind(target);
    if (k === 'dir') {
        const file = external_node_path_default().join(target, JOURNAL_FILE);
        if (mustExist && pathKind(file) !== 'file')
            throw new errors_InputError(`${target}: no ${JOURNAL_FILE} in this directory`);
        return { file, dir: target, agentId: external_node_path_default().basename(external_node_path_default().resolve(target)) };
    }
    if (k === 'file') {
        const dir = external_node_path_default().dirname(target);
        return { file: target, dir, agentId: external_node_path_default().basename(external_node_path_default().resolve(dir)) };
    }
    throw new errors_InputError(mustExist
        ? `${target}: no such journal file or directory`
        : `${target}: no such journal directory (a new journal is started by agent id, under --root)`);
}

;// CONCATENATED MODULE: ./src/journal/read.ts


/** `file:line: kind: message` for one fault. */
function describeFault(file, f) {
    return `${f.line === null ? file : `${file}:${f.line}`}: ${f.kind}: ${f.message}`;
}
/**
 * Reads a journal for display or use: verified first, so a tampered chain is never
 * laid out as if it were intact. Throws IntegrityError naming the first fault.
 */
function readVerifiedJournal(file, options = {}) {
    const r = readJournalFile(file, options);
    if (!r.ok) {
        const more = r.errors.length > 1 ? ` (and ${r.errors.length - 1} more fault${r.errors.length > 2 ? 's' : ''})` : '';
        throw new errors_IntegrityError(`${describeFault(file, r.errors[0])}${more}`);
    }
    return r;
}
/** Steps `[a..b]` (inclusive, 0-based seqs) of a verified journal. */
function readWindow(file, a, b) {
    const r = readVerifiedJournal(file);
    if (!Number.isInteger(a) || !Number.isInteger(b) || a < 0 || b < a)
        throw new InputError(`bad step window [${a}..${b}]`);
    if (b >= r.steps)
        throw new InputError(`${file}: step ${b} is out of range (the journal has ${r.steps} steps, 0..${r.steps - 1})`);
    return r.entries.slice(a, b + 1);
}
/** One step of a verified journal. */
function readStep(file, seq) {
    return readWindow(file, seq, seq)[0];
}
/** The verified head hash. */
function journalHead(file) {
    return readVerifiedJournal(file).head_hash;
}

;// CONCATENATED MODULE: ./src/journal/index.ts













;// CONCATENATED MODULE: external "node:child_process"
const external_node_child_process_namespaceObject = require("node:child_process");
;// CONCATENATED MODULE: ./node_modules/@simple-git/args-pathspec/dist/index.mjs
const t = /* @__PURE__ */ new WeakMap();
function dist_c(...n) {
  const e = new String(n);
  return t.set(e, n), e;
}
function dist_r(n) {
  return n instanceof String && t.has(n);
}
function dist_o(n) {
  return t.get(n) ?? [];
}

//# sourceMappingURL=index.mjs.map

// EXTERNAL MODULE: ./node_modules/@kwsites/file-exists/dist/index.js
var dist = __nccwpck_require__(117);
// EXTERNAL MODULE: ./node_modules/debug/src/index.js
var src = __nccwpck_require__(830);
// EXTERNAL MODULE: ./node_modules/@kwsites/promise-deferred/dist/index.js
var promise_deferred_dist = __nccwpck_require__(997);
;// CONCATENATED MODULE: ./node_modules/@simple-git/argv-parser/dist/index.mjs

function* x(e, n) {
  const t = n === "global";
  for (const o of e)
    o.isGlobal === t && (yield o);
}
const P = /* @__PURE__ */ new Set([
  "--add",
  "--edit",
  "--remove-section",
  "--rename-section",
  "--replace-all",
  "--unset",
  "--unset-all",
  "-e"
]), S = /* @__PURE__ */ new Set([
  "--get",
  "--get-all",
  "--get-color",
  "--get-colorbool",
  "--get-regexp",
  "--get-urlmatch",
  "--list",
  "-l"
]), E = /* @__PURE__ */ new Set([
  "edit",
  "remove-section",
  "rename-section",
  "set",
  "unset"
]), F = /* @__PURE__ */ new Set(["get", "get-color", "get-colorbool", "list"]);
function A(e, n) {
  for (const { name: o } of x(e, "task")) {
    if (P.has(o))
      return w(!0, n);
    if (S.has(o))
      return w(!1, n);
  }
  const t = n.at(0)?.toLowerCase();
  return t === void 0 ? null : E.has(t) ? w(!0, n.slice(1)) : F.has(t) ? w(!1, n.slice(1)) : n.length === 1 ? w(!1, n) : w(!0, n);
}
function w(e = !1, n = []) {
  const t = n.at(0)?.toLowerCase();
  return t === void 0 ? null : {
    isWrite: e,
    isRead: !e,
    key: t,
    value: n.at(1)
  };
}
function O(e, n) {
  return n.isWrite && n.value !== void 0 ? { key: n.key, value: n.value, scope: e } : { key: n.key, scope: e };
}
function G(e) {
  const n = e?.indexOf("=") || -1;
  return !e || n < 0 ? null : {
    key: e.slice(0, n).trim().toLowerCase(),
    value: e.slice(n + 1)
  };
}
function M(e) {
  for (const { name: n } of x(e, "task"))
    switch (n) {
      case "--global":
        return "global";
      case "--system":
        return "system";
      case "--worktree":
        return "worktree";
      case "--local":
        return "local";
      case "--file":
      case "-f":
        return "file";
    }
  return "local";
}
function N({ name: e }) {
  if (e === "-c" || e === "--config")
    return "inline";
  if (e === "--config-env")
    return "env";
}
function* $(e) {
  for (const n of e) {
    const t = N(n), o = t && G(n.value);
    o && (yield {
      ...o,
      scope: t
    });
  }
}
function D(e, n, t) {
  const o = {
    read: [],
    write: [...$(n)]
  };
  return e === "config" && L(
    o,
    M(n),
    A(n, t)
  ), o;
}
function L(e, n, t) {
  if (t === null)
    return;
  const o = O(n, t);
  t.isWrite ? e.write.push(o) : e.read.push(o);
}
const C = {
  short: /* @__PURE__ */ new Map([
    ["c", !0]
    //  -c <k=v>    set config key for this invocation
  ])
}, I = {
  short: new Map([
    ["C", !0],
    //  -C <path>   change working directory
    ["P", !1],
    // -P          no pager (alias for --no-pager)
    ["h", !1],
    // -h          help
    ["p", !1],
    // -p          paginate
    ["v", !1],
    // -v          version
    ...C.short.entries()
  ]),
  long: /* @__PURE__ */ new Set([
    "attr-source",
    "config-env",
    "exec-path",
    "git-dir",
    "list-cmds",
    "namespace",
    "super-prefix",
    "work-tree"
  ])
}, R = {
  clone: {
    short: /* @__PURE__ */ new Map([
      ["b", !0],
      // -b <branch>
      ["j", !0],
      // -j <n>          parallel jobs
      ["l", !1],
      // -l local
      ["n", !1],
      // -n no-checkout
      ["o", !0],
      // -o <name>       remote name
      ["q", !1],
      // -q quiet
      ["s", !1],
      // -s shared
      ["u", !0]
      // -u <upload-pack>
    ]),
    long: /* @__PURE__ */ new Set(["branch", "config", "jobs", "origin", "upload-pack", "u", "template"])
  },
  commit: {
    short: /* @__PURE__ */ new Map([
      ["C", !0],
      // -C <commit>  reuse message
      ["F", !0],
      // -F <file>    read message from file
      ["c", !0],
      // -c <commit>  reedit message
      ["m", !0],
      // -m <msg>
      ["t", !0]
      // -t <template>
    ]),
    long: /* @__PURE__ */ new Set(["file", "message", "reedit-message", "reuse-message", "template"])
  },
  config: {
    short: /* @__PURE__ */ new Map([
      ["e", !1],
      // -e  open editor
      ["f", !0],
      //  -f <file>
      ["l", !1]
      // -l  list
    ]),
    long: /* @__PURE__ */ new Set(["blob", "comment", "default", "file", "type", "value"])
  },
  fetch: {
    short: /* @__PURE__ */ new Map(),
    long: /* @__PURE__ */ new Set(["upload-pack"])
  },
  init: {
    short: /* @__PURE__ */ new Map(),
    long: /* @__PURE__ */ new Set(["template"])
  },
  pull: {
    short: /* @__PURE__ */ new Map(),
    long: /* @__PURE__ */ new Set(["upload-pack"])
  },
  push: {
    short: /* @__PURE__ */ new Map(),
    long: /* @__PURE__ */ new Set(["exec", "receive-pack"])
  },
  rebase: {
    short: /* @__PURE__ */ new Map([
      ["X", !0],
      // -X <option>   strategy option
      ["f", !1],
      // -f force-rebase
      ["i", !1],
      // -i interactive
      ["k", !1],
      // -k keep-base
      ["m", !1],
      // -m merge
      ["n", !1],
      // -n no-stat
      ["q", !1],
      // -q quiet
      ["r", !1],
      // -r rebase-merges
      ["s", !0],
      // -s <strategy>
      ["v", !1],
      // -v verbose
      ["x", !0]
      // -x <cmd>      exec
    ]),
    long: /* @__PURE__ */ new Set(["exec", "onto", "strategy", "strategy-option"])
  }
}, T = { short: /* @__PURE__ */ new Map(), long: /* @__PURE__ */ new Set() };
function B(e) {
  const n = R[e ?? ""] ?? T;
  return {
    short: new Map([...C.short.entries(), ...n.short.entries()]),
    long: n.long
  };
}
function b(e, n = I) {
  if (e.startsWith("--")) {
    const t = e.indexOf("=");
    if (t > 2)
      return [{ name: e.slice(0, t), value: e.slice(t + 1), needsNext: !1 }];
    const o = e.slice(2);
    return [{ name: e, needsNext: n.long.has(o) }];
  }
  if (e.length === 2) {
    const t = e.charAt(1), o = n.short.get(t);
    return [{ name: e, needsNext: o === !0 }];
  }
  return j(e, n.short);
}
function j(e, n) {
  const t = e.slice(1).split(""), o = [];
  for (let a = 0; a < t.length; a++) {
    const s = t[a], r = n.get(s);
    if (r === void 0)
      return [{ name: e, needsNext: !1 }];
    if (r) {
      const i = t.slice(a + 1).join("");
      if (i && ![...i].every((m) => n.has(m)))
        return o.push({ name: `-${s}`, value: i, needsNext: !1 }), o;
    }
    o.push({ name: `-${s}`, needsNext: r });
  }
  return o;
}
function W(e, n = []) {
  let t = 0;
  for (; t < e.length; ) {
    const o = String(e[t]);
    if (!o.startsWith("-") || o.length < 2) break;
    const a = b(o);
    let s = t + 1;
    for (const r of a) {
      const i = {
        name: r.name,
        value: r.value,
        absorbedNext: !1,
        isGlobal: !0
      };
      r.needsNext && i.value === void 0 && s < e.length && (i.value = String(e[s]), i.absorbedNext = !0, s++), n.push(i);
    }
    t = s;
  }
  return { flags: n, taskIndex: t };
}
function V(e, n, t = []) {
  const o = B(n), a = [], s = [];
  let r = 0;
  for (; r < e.length; ) {
    const i = e[r];
    if (dist_r(i)) {
      s.push(...dist_o(i)), r++;
      continue;
    }
    const p = String(i);
    if (p === "--") {
      for (let d = r + 1; d < e.length; d++) {
        const g = e[d];
        dist_r(g) ? s.push(...dist_o(g)) : s.push(String(g));
      }
      break;
    }
    if (!p.startsWith("-") || p.length < 2) {
      a.push(p), r++;
      continue;
    }
    const m = b(p, o);
    let u = r + 1;
    for (const d of m) {
      const g = {
        name: d.name,
        value: d.value,
        absorbedNext: !1,
        isGlobal: !1
      };
      d.needsNext && g.value === void 0 && u < e.length && !dist_r(e[u]) && (g.value = String(e[u]), g.absorbedNext = !0, u++), t.push(g);
    }
    r = u;
  }
  return { flags: t, positionals: a, pathspecs: s };
}
function* q({
  write: e
}) {
  for (const n of e)
    for (const t of K) {
      const o = t(n.key);
      o && (yield o);
    }
}
function f(e, n, t = String(e)) {
  const o = typeof e == "string" ? new RegExp(`\\s*${e.toLowerCase()}`) : e;
  return function(s) {
    if (o.test(s))
      return {
        category: n,
        message: `Configuring ${t} is not permitted without enabling ${n}`
      };
  };
}
function l(e, n) {
  const t = new RegExp(`\\s*${e.toLowerCase().replace(/\./g, "(..+)?.")}`);
  return f(t, n, e);
}
const K = [
  f("alias", "allowUnsafeAlias"),
  f("core.askPass", "allowUnsafeAskPass"),
  f("core.editor", "allowUnsafeEditor"),
  f("core.fsmonitor", "allowUnsafeFsMonitor"),
  f("core.gitProxy", "allowUnsafeGitProxy"),
  f("core.hooksPath", "allowUnsafeHooksPath"),
  f("core.pager", "allowUnsafePager"),
  f("core.sshCommand", "allowUnsafeSshCommand"),
  l("credential.helper", "allowUnsafeCredentialHelper"),
  l("diff.command", "allowUnsafeDiffExternal"),
  f("diff.external", "allowUnsafeDiffExternal"),
  l("difftool.cmd", "allowUnsafeDiffExternal"),
  l("diff.textconv", "allowUnsafeDiffTextConv"),
  l("filter.clean", "allowUnsafeFilter"),
  l("filter.process", "allowUnsafeFilter"),
  l("filter.smudge", "allowUnsafeFilter"),
  l("gpg.program", "allowUnsafeGpgProgram"),
  f("include.path", "allowUnsafeInclude"),
  l("includeIf", "allowUnsafeInclude"),
  f("init.templateDir", "allowUnsafeTemplateDir"),
  l("pager.", "allowUnsafePager"),
  l("merge.driver", "allowUnsafeMergeDriver"),
  l("mergetool.path", "allowUnsafeMergeDriver"),
  l("mergetool.cmd", "allowUnsafeMergeDriver"),
  l("protocol.allow", "allowUnsafeProtocolOverride"),
  l("remote.receivepack", "allowUnsafePack"),
  l("remote.uploadpack", "allowUnsafePack"),
  f("uploadpack.packObjectsHook", "allowUnsafePack"),
  f("sequence.editor", "allowUnsafeEditor"),
  l("submodule.update", "allowUnsafeSubmodule"),
  l("tar.command", "allowUnsafeCommandBinaries"),
  l("trailer.cmd", "allowUnsafeCommandBinaries"),
  l("trailer.command", "allowUnsafeCommandBinaries"),
  l("url.insteadOf", "allowUnsafeUrlRewrite")
];
function* H(e, n) {
  for (const t of n)
    for (const o of X) {
      const a = o(e, t);
      a && (yield a);
    }
}
function c(e, n, t, { name: o = String(n), globalOnly: a = !1, withValue: s = !1 } = {}) {
  const r = typeof n == "string" ? new RegExp(`\\s*${n.toLowerCase()}`) : n, i = `Use of ${e ? `${e} with option ` : ""}${o} is not permitted without enabling ${t}`;
  return function(m, u) {
    if (!(e && m !== e) && !(a && !u.isGlobal) && !(s && u.value === void 0) && r.test(u.name))
      return {
        category: t,
        message: i
      };
  };
}
const h = { globalOnly: !0, withValue: !0 }, X = [
  c(null, /--(upload|receive)-pack/, "allowUnsafePack", {
    name: "--upload-pack or --receive-pack"
  }),
  c("clone", /^-\w*u/, "allowUnsafePack"),
  c("clone", "--u", "allowUnsafePack"),
  c("push", /^--exec$/, "allowUnsafePack", { name: "--exec" }),
  // `git` accepts unambiguous abbreviations of long options, so `--ex` and `--exe` are `--exec`
  c("rebase", /^(-x|--ex(ec?)?)$/, "allowUnsafeExec", { name: "-x or --exec" }),
  c(null, "--template", "allowUnsafeTemplateDir"),
  c(null, "--exec-path", "allowUnsafeExec", h),
  // `git` reads the configuration of whichever repository these name, so the
  // directory alone is enough to deliver config the argv guards never see
  c(null, "--git-dir", "allowUnsafeConfigPaths", h),
  c(null, "--work-tree", "allowUnsafeConfigPaths", h),
  c(null, /^-C$/, "allowUnsafeConfigPaths", { ...h, name: "-C" })
];
function k(e, n, t) {
  return [...H(e, n), ...q(t)];
}
function Y(...e) {
  const { flags: n, taskIndex: t } = W(e), o = t < e.length ? String(e[t]).toLowerCase() : null, a = o !== null ? e.slice(t + 1) : [], { positionals: s, pathspecs: r } = V(a, o, n), i = D(o, n, s);
  return {
    task: o,
    flags: n.map(J),
    paths: r,
    config: i,
    vulnerabilities: z(k(o, n, i))
  };
}
function z(e) {
  return Object.defineProperty(e, "vulnerabilities", {
    value: e
  });
}
function J({ value: e, name: n }) {
  return e !== void 0 ? { name: n, value: e } : { name: n };
}
const y = {
  editor: "allowUnsafeEditor",
  git_askpass: "allowUnsafeAskPass",
  git_config_global: "allowUnsafeConfigPaths",
  git_config_system: "allowUnsafeConfigPaths",
  git_config_count: "allowUnsafeConfigEnvCount",
  git_config_parameters: "allowUnsafeConfigEnvCount",
  git_config: "allowUnsafeConfigPaths",
  git_editor: "allowUnsafeEditor",
  git_exec_path: "allowUnsafeExec",
  git_external_diff: "allowUnsafeDiffExternal",
  git_pager: "allowUnsafePager",
  git_proxy_command: "allowUnsafeGitProxy",
  git_template_dir: "allowUnsafeTemplateDir",
  git_sequence_editor: "allowUnsafeEditor",
  git_ssh: "allowUnsafeSshCommand",
  git_ssh_command: "allowUnsafeSshCommand",
  pager: "allowUnsafePager",
  prefix: "allowUnsafeConfigPaths",
  ssh_askpass: "allowUnsafeAskPass",
  visual: "allowUnsafeEditor"
};
function* Q(e) {
  const n = parseInt(e.git_config_count ?? "0", 10);
  for (let t = 0; t < n; t++) {
    const o = e[`git_config_key_${t}`], a = e[`git_config_value_${t}`];
    o !== void 0 && (yield { key: o.toLowerCase().trim(), value: a, scope: "env" });
  }
}
function* Z(e) {
  for (const n of Object.keys(e))
    if (_(n)) {
      const t = y[n];
      yield {
        category: t,
        message: `Use of "${n.toUpperCase()}" is not permitted without enabling ${t}`
      };
    }
}
function _(e) {
  return Object.hasOwn(y, e);
}
function ee(e) {
  const n = {};
  for (const [t, o] of Object.entries(e)) {
    const a = t.toLowerCase().trim();
    (_(a) || a.startsWith("git")) && (n[a] = String(o));
  }
  return n;
}
function ne(e) {
  const n = ee(e), t = {
    read: [],
    write: [...Q(n)]
  }, o = [
    ...Z(n),
    ...k(null, [], t)
  ];
  return {
    config: t,
    vulnerabilities: o
  };
}
function oe(e, n) {
  return [...Y(...e).vulnerabilities, ...ne(n).vulnerabilities];
}

//# sourceMappingURL=index.mjs.map

;// CONCATENATED MODULE: external "node:events"
const external_node_events_namespaceObject = require("node:events");
;// CONCATENATED MODULE: ./node_modules/simple-git/dist/index.mjs









class dist_O extends Error {
  constructor(e, n) {
    super(n), this.task = e, Object.setPrototypeOf(this, new.target.prototype);
  }
}
class Ae extends dist_O {
  constructor(e, n) {
    super(void 0, n), this.config = e;
  }
}
class dist_A extends dist_O {
  constructor(e, n, r) {
    super(e, r), this.task = e, this.plugin = n, Object.setPrototypeOf(this, new.target.prototype);
  }
}
class dist_at extends dist_O {
  constructor(e, n) {
    super(void 0, n || String(e)), this.git = e;
  }
}
class xe extends dist_O {
  constructor(e) {
    super(void 0, e);
  }
}
const dist_I = "\0", dist_W = () => {
};
function Ne(t) {
  return typeof t != "function" ? dist_W : t;
}
function $e(t) {
  return typeof t == "function" && t !== dist_W;
}
function Pe(t, e) {
  const n = t.indexOf(e);
  return n <= 0 ? [t, ""] : [t.substr(0, n), t.substr(n + 1)];
}
function Me(t, e = 0) {
  return Dt(t) && t.length > e ? t[e] : void 0;
}
function dist_N(t, e = 0) {
  if (Dt(t) && t.length > e)
    return t[t.length - 1 - e];
}
function Dt(t) {
  return Bt(t);
}
function dist_H(t = "", e = !0, n = `
`) {
  return t.split(n).reduce((r, s) => {
    const o = e ? s.trim() : s;
    return o && r.push(o), r;
  }, []);
}
function ut(t, e) {
  return dist_H(t, !0).map((n) => e(n));
}
function Lt(t) {
  return (0,dist.exists)(t, dist.FOLDER);
}
function dist_S(t, e) {
  return Array.isArray(t) ? t.includes(e) || t.push(e) : t.add(e), e;
}
function De(t, e) {
  return Array.isArray(t) && !t.includes(e) && t.push(e), t;
}
function ct(t, e) {
  if (Array.isArray(t)) {
    const n = t.indexOf(e);
    n >= 0 && t.splice(n, 1);
  } else
    t.delete(e);
  return e;
}
const ft = Object.prototype.toString.call.bind(Object.prototype.toString);
function v(t) {
  return Array.isArray(t) ? t : [t];
}
function jt(t) {
  return t.replace(/[\s-]+(.)/g, (e, n) => n.toUpperCase());
}
function dist_L(t) {
  return v(t).map((e) => e instanceof String ? e : String(e));
}
function p(t, e = 0) {
  if (t == null)
    return e;
  const n = parseInt(t, 10);
  return Number.isNaN(n) ? e : n;
}
function U(t, e) {
  const n = [];
  for (let r = 0, s = t.length; r < s; r++)
    n.push(e, t[r]);
  return n;
}
function dist_F(t) {
  return (Array.isArray(t) ? Buffer.concat(t) : t).toString("utf-8");
}
function Le(t) {
  return t ? Buffer.isBuffer(t) ? t.length : Buffer.byteLength(t) : 0;
}
function je(t, e) {
  const n = {};
  return e.forEach((r) => {
    t[r] !== void 0 && (n[r] = t[r]);
  }), n;
}
function wt(t = 0) {
  return new Promise((e) => setTimeout(e, t));
}
function bt(t) {
  if (t !== !1)
    return t;
}
function d(t, e, n) {
  return e(t) ? t : arguments.length > 2 ? n : void 0;
}
const dist_K = (t) => Array.isArray(t);
function st(t, e) {
  const n = dist_r(t) ? "string" : typeof t;
  return /number|string|boolean/.test(n) && (!e || !e.includes(n));
}
const m = (t) => typeof t == "string" || dist_r(t), Be = (t) => m(t) || Buffer.isBuffer(t), dist_G = (t) => m(t) || Array.isArray(t) && t.every(m);
function lt(t) {
  return !!t && ft(t) === "[object Object]";
}
function Ie(t) {
  return typeof t == "function";
}
const Bt = (t) => t == null || "number|boolean|function".includes(typeof t) ? !1 : typeof t.length == "number";
var dist_V = /* @__PURE__ */ ((t) => (t[t.SUCCESS = 0] = "SUCCESS", t[t.ERROR = 1] = "ERROR", t[t.NOT_FOUND = -2] = "NOT_FOUND", t[t.UNCLEAN = 128] = "UNCLEAN", t))(dist_V || {});
class dist_z {
  constructor(e, n) {
    this.stdOut = e, this.stdErr = n;
  }
  asStrings() {
    return new dist_z(this.stdOut.toString("utf8"), this.stdErr.toString("utf8"));
  }
}
function Ue() {
  throw new Error("LineParser:useMatches not implemented");
}
class dist_l {
  constructor(e, n) {
    this.matches = [], this.useMatches = Ue, this.parse = (r, s) => (this.resetMatches(), this._regExp.every((o, i) => this.addMatch(o, i, r(i))) ? this.useMatches(s, this.prepareMatches()) !== !1 : !1), this._regExp = Array.isArray(e) ? e : [e], n && (this.useMatches = n);
  }
  resetMatches() {
    this.matches.length = 0;
  }
  prepareMatches() {
    return this.matches;
  }
  addMatch(e, n, r) {
    const s = r && e.exec(r);
    return s && this.pushMatch(n, s), !!s;
  }
  pushMatch(e, n) {
    this.matches.push(...n.slice(1));
  }
}
class dist_x extends dist_l {
  addMatch(e, n, r) {
    return /^remote:\s/.test(String(r)) && super.addMatch(e, n, r);
  }
  pushMatch(e, n) {
    (e > 0 || n.length > 1) && super.pushMatch(e, n);
  }
}
const Fe = {
  binary: "git",
  maxConcurrentProcesses: 5,
  config: [],
  trimmed: !1
};
function Ge(...t) {
  const e = process.cwd(), n = Object.assign(
    { baseDir: e, ...Fe },
    ...t.filter((r) => typeof r == "object" && r)
  );
  return n.baseDir = n.baseDir || e, n.trimmed = n.trimmed === !0, n;
}
function It(t, e = []) {
  return lt(t) ? Object.keys(t).reduce((n, r) => {
    const s = t[r];
    if (dist_r(s))
      n.push(s);
    else if (st(s, ["boolean"]))
      n.push(r + "=" + s);
    else if (Array.isArray(s))
      for (const o of s)
        st(o, ["string", "number"]) || n.push(r + "=" + o);
    else
      n.push(r);
    return n;
  }, e) : e;
}
function dist_h(t, e = 0, n = !1) {
  const r = [];
  for (let s = 0, o = e < 0 ? t.length : e; s < o; s++)
    "string|number".includes(typeof t[s]) && r.push(String(t[s]));
  return It(ht(t), r), n || r.push(...ze(t)), r;
}
function ze(t) {
  const e = typeof dist_N(t) == "function";
  return dist_L(d(dist_N(t, e ? 1 : 0), dist_K, []));
}
function ht(t) {
  const e = Ie(dist_N(t));
  return d(dist_N(t, e ? 1 : 0), lt);
}
function u(t, e = !0) {
  const n = Ne(dist_N(t));
  return e || $e(n) ? n : void 0;
}
function Tt(t, e) {
  return t(e.stdOut, e.stdErr);
}
function dist_E(t, e, n, r = !0) {
  return v(n).forEach((s) => {
    for (let o = dist_H(s, r), i = 0, a = o.length; i < a; i++) {
      const c = (y = 0) => {
        if (!(i + y >= a))
          return o[i + y];
      };
      e.some(({ parse: y }) => y(c, t));
    }
  }), t;
}
var qe = /* @__PURE__ */ ((t) => (t.BARE = "bare", t.IN_TREE = "tree", t.IS_REPO_ROOT = "root", t))(qe || {});
const mt = ({ exitCode: t }, e, n, r) => {
  if (t === dist_V.UNCLEAN && Ve(e))
    return n(Buffer.from("false"));
  r(e);
}, Ut = (t) => t.trim() === "true";
function We(t) {
  switch (t) {
    case "bare":
      return Ke();
    case "root":
      return He();
  }
  return {
    commands: ["rev-parse", "--is-inside-work-tree"],
    format: "utf-8",
    onError: mt,
    parser: Ut
  };
}
function He() {
  return {
    commands: ["rev-parse", "--git-dir"],
    format: "utf-8",
    onError: mt,
    parser(e) {
      return /^\.(git)?$/.test(e.trim());
    }
  };
}
function Ke() {
  return {
    commands: ["rev-parse", "--is-bare-repository"],
    format: "utf-8",
    onError: mt,
    parser: Ut
  };
}
function Ve(t) {
  return /(Not a git repository|Kein Git-Repository)/i.test(String(t));
}
class Xe {
  constructor(e) {
    this.paths = [], this.files = [], this.folders = [], this.dryRun = e;
  }
}
const Ye = /^[a-z]+\s*/i, Qe = /^[a-z]+\s+[a-z]+\s*/i, Je = /\/$/;
function Ze(t, e) {
  const n = new Xe(t), r = t ? Qe : Ye;
  return dist_H(e).forEach((s) => {
    const o = s.replace(r, "");
    n.paths.push(o), (Je.test(o) ? n.folders : n.files).push(o);
  }), n;
}
const Ft = [];
function tn(t) {
  return {
    commands: Ft,
    format: "empty",
    parser: t
  };
}
function dist_b(t) {
  return {
    commands: Ft,
    format: "empty",
    parser() {
      throw typeof t == "string" ? new xe(t) : t;
    }
  };
}
function g(t, e = !1) {
  return {
    commands: t,
    format: "utf-8",
    parser(n) {
      return e ? String(n).trim() : n;
    }
  };
}
function Gt(t) {
  return {
    commands: t,
    format: "buffer",
    parser(e) {
      return e;
    }
  };
}
function en(t) {
  return t.format === "buffer";
}
function kt(t) {
  return t.format === "empty" || !t.commands.length;
}
const nn = "Git clean interactive mode is not supported", rn = 'Git clean mode parameter ("n" or "f") is required', sn = "Git clean unknown option found in: ";
var zt = /* @__PURE__ */ ((t) => (t.DRY_RUN = "n", t.FORCE = "f", t.IGNORED_INCLUDED = "x", t.IGNORED_ONLY = "X", t.EXCLUDING = "e", t.QUIET = "q", t.RECURSIVE = "d", t))(zt || {});
const qt = /* @__PURE__ */ new Set([
  "i",
  ...dist_L(Object.values(zt))
]);
function on(t, e) {
  const { cleanMode: n, options: r, valid: s } = cn(t);
  return n ? s.options ? (r.push(...e), r.some(hn) ? dist_b(nn) : an(n, r)) : dist_b(sn + JSON.stringify(t)) : dist_b(rn);
}
function an(t, e) {
  return {
    commands: ["clean", `-${t}`, ...e],
    format: "utf-8",
    parser(r) {
      return Ze(t === "n", r);
    }
  };
}
function un(t) {
  return Array.isArray(t) && t.every((e) => qt.has(e));
}
function cn(t) {
  let e, n = [], r = { cleanMode: !1, options: !0 };
  return t.replace(/[^a-z]i/g, "").split("").forEach((s) => {
    fn(s) ? (e = s, r.cleanMode = !0) : r.options = r.options && ln(n[n.length] = `-${s}`);
  }), {
    cleanMode: e,
    options: n,
    valid: r
  };
}
function fn(t) {
  return t === "f" || t === "n";
}
function ln(t) {
  return /^-[a-z]$/i.test(t) && qt.has(t.charAt(1));
}
function hn(t) {
  return /^-[^\-]/.test(t) ? t.indexOf("i") > 0 : t === "--interactive";
}
class mn {
  constructor() {
    this.files = [], this.values = /* @__PURE__ */ Object.create(null);
  }
  get all() {
    return this._all || (this._all = this.files.reduce((e, n) => Object.assign(e, this.values[n]), {})), this._all;
  }
  addFile(e) {
    if (!(e in this.values)) {
      const n = dist_N(this.files);
      this.values[e] = n ? Object.create(this.values[n]) : {}, this.files.push(e);
    }
    return this.values[e];
  }
  addValue(e, n, r) {
    const s = this.addFile(e);
    Object.hasOwn(s, n) ? Array.isArray(s[n]) ? s[n].push(r) : s[n] = [s[n], r] : s[n] = r, this._all = void 0;
  }
}
function pn(t) {
  const e = new mn();
  for (const n of Wt(t))
    e.addValue(n.file, String(n.key), n.value);
  return e;
}
function dn(t, e) {
  let n = null;
  const r = [], s = /* @__PURE__ */ new Map();
  for (const o of Wt(t, e))
    o.key === e && (r.push(n = o.value), s.has(o.file) || s.set(o.file, []), s.get(o.file).push(n));
  return {
    key: e,
    paths: Array.from(s.keys()),
    scopes: s,
    value: n,
    values: r
  };
}
function gn(t) {
  return t.replace(/^(file):/, "");
}
function* Wt(t, e = null) {
  const n = t.split("\0");
  for (let r = 0, s = n.length - 1; r < s; ) {
    const o = gn(n[r++]);
    let i = n[r++], a = e;
    if (i.includes(`
`)) {
      const c = Pe(i, `
`);
      a = c[0], i = c[1];
    }
    yield { file: o, key: a, value: i };
  }
}
var Ht = /* @__PURE__ */ ((t) => (t.system = "system", t.global = "global", t.local = "local", t.worktree = "worktree", t))(Ht || {});
function dist_Y(t, e) {
  return typeof t == "string" && Object.hasOwn(Ht, t) ? t : e;
}
function yn(t, e, n, r) {
  const s = ["config", `--${r}`];
  return n && s.push("--add"), s.push(t, e), {
    commands: s,
    format: "utf-8",
    parser(o) {
      return o;
    }
  };
}
function wn(t, e) {
  const n = ["config", "--null", "--show-origin", "--get-all", t];
  return e && n.splice(1, 0, `--${e}`), {
    commands: n,
    format: "utf-8",
    parser(r) {
      return dn(r, t);
    }
  };
}
function bn(t) {
  const e = ["config", "--list", "--show-origin", "--null"];
  return t && e.push(`--${t}`), {
    commands: e,
    format: "utf-8",
    parser(n) {
      return pn(n);
    }
  };
}
function Tn() {
  return {
    addConfig(t, e, ...n) {
      return this._runTask(
        yn(
          t,
          e,
          n[0] === !0,
          dist_Y(
            n[1],
            "local"
            /* local */
          )
        ),
        u(arguments)
      );
    },
    getConfig(t, e) {
      return this._runTask(
        wn(t, dist_Y(e, void 0)),
        u(arguments)
      );
    },
    listConfig(...t) {
      return this._runTask(
        bn(dist_Y(t[0], void 0)),
        u(arguments)
      );
    }
  };
}
var Kt = /* @__PURE__ */ ((t) => (t.ADDED = "A", t.COPIED = "C", t.DELETED = "D", t.MODIFIED = "M", t.RENAMED = "R", t.CHANGED = "T", t.UNMERGED = "U", t.UNKNOWN = "X", t.BROKEN = "B", t))(Kt || {});
const kn = new Set(Object.values(Kt));
function _n(t) {
  return kn.has(t);
}
var _t;
const vn = ["-h"], dist_j = /* @__PURE__ */ Symbol("grepQuery");
class En {
  constructor() {
    this[_t] = [];
  }
  *[(_t = dist_j, Symbol.iterator)]() {
    for (const e of this[dist_j])
      yield e;
  }
  and(...e) {
    return e.length && this[dist_j].push("--and", "(", ...U(e, "-e"), ")"), this;
  }
  param(...e) {
    return this[dist_j].push(...U(e, "-e")), this;
  }
}
function Sn(...t) {
  return new En().param(...t);
}
function Rn(t) {
  const e = /* @__PURE__ */ new Set(), n = {};
  return ut(t, (r) => {
    const [s, o, i] = r.split(dist_I);
    e.add(s), (n[s] = n[s] || []).push({
      line: p(o),
      path: s,
      preview: i
    });
  }), {
    paths: e,
    results: n
  };
}
function On() {
  return {
    grep(t) {
      const e = u(arguments), n = dist_h(arguments);
      for (const s of vn)
        if (n.includes(s))
          return this._runTask(
            dist_b(`git.grep: use of "${s}" is not supported.`),
            e
          );
      typeof t == "string" && (t = Sn().param(t));
      const r = ["grep", "--null", "-n", "--full-name", ...n, ...t];
      return this._runTask(
        {
          commands: r,
          format: "utf-8",
          parser(s) {
            return Rn(s);
          }
        },
        e
      );
    }
  };
}
var Vt = /* @__PURE__ */ ((t) => (t.MIXED = "mixed", t.SOFT = "soft", t.HARD = "hard", t.MERGE = "merge", t.KEEP = "keep", t))(Vt || {});
const Cn = dist_L(Object.values(Vt));
function An(t, e) {
  const n = ["reset"];
  return Xt(t) && n.push(`--${t}`), n.push(...e), g(n);
}
function xn(t) {
  if (Xt(t))
    return t;
  switch (typeof t) {
    case "string":
    case "undefined":
      return "soft";
  }
}
function Xt(t) {
  return typeof t == "string" && Cn.includes(t);
}
src.formatters.L = (t) => String(Bt(t) ? t.length : "-");
src.formatters.B = (t) => Buffer.isBuffer(t) ? t.toString("utf8") : ft(t);
function Nn() {
  return src("simple-git");
}
function vt(t, e, n) {
  return !e || !String(e).replace(/\s*/, "") ? n ? (r, ...s) => {
    t(r, ...s), n(r, ...s);
  } : t : (r, ...s) => {
    t(`%s ${r}`, e, ...s), n && n(r, ...s);
  };
}
function $n(t, e, { namespace: n }) {
  if (typeof t == "string")
    return t;
  const r = e && e.namespace || "";
  return r.startsWith(n) ? r.substr(n.length + 1) : r || n;
}
function dist_$(t, e, n, r = Nn()) {
  const s = t && `[${t}]` || "", o = [], i = typeof e == "string" ? r.extend(e) : e, a = $n(d(e, m), i, r);
  return y(n);
  function c(w, T) {
    return dist_S(
      o,
      dist_$(t, a.replace(/^[^:]+/, w), T, r)
    );
  }
  function y(w) {
    const T = w && `[${w}]` || "", k = i && vt(i, T) || dist_W, C = vt(r, `${s} ${T}`, k);
    return Object.assign(i ? k : C, {
      label: t,
      sibling: c,
      info: C,
      step: y
    });
  }
}
const dist_M = class M {
  constructor(e = "GitExecutor") {
    this.logLabel = e, this._queue = /* @__PURE__ */ new Map();
  }
  withProgress(e) {
    return this._queue.get(e);
  }
  createProgress(e) {
    const n = M.getName(e.commands[0]), r = dist_$(this.logLabel, n);
    return {
      task: e,
      logger: r,
      name: n
    };
  }
  push(e) {
    const n = this.createProgress(e);
    return n.logger("Adding task to the queue, commands = %o", e.commands), this._queue.set(e, n), n;
  }
  fatal(e) {
    for (const [n, { logger: r }] of Array.from(this._queue.entries()))
      n === e.task ? (r.info("Failed %o", e), r(
        "Fatal exception, any as-yet un-started tasks run through this executor will not be attempted"
      )) : r.info(
        "A fatal exception occurred in a previous task, the queue has been purged: %o",
        e.message
      ), this.complete(n);
    if (this._queue.size !== 0)
      throw new Error(`Queue size should be zero after fatal: ${this._queue.size}`);
  }
  complete(e) {
    this.withProgress(e) && this._queue.delete(e);
  }
  attempt(e) {
    const n = this.withProgress(e);
    if (!n)
      throw new dist_O(void 0, "TasksPendingQueue: attempt called for an unknown task");
    return n.logger("Starting task"), n;
  }
  static getName(e = "empty") {
    return `task:${e}:${++M.counter}`;
  }
};
dist_M.counter = 0;
let ot = dist_M;
class Pn {
  constructor(e, n, r) {
    this._executor = e, this._scheduler = n, this._plugins = r, this._chain = Promise.resolve(), this._queue = new ot();
  }
  get cwd() {
    return this._cwd || this._executor.cwd;
  }
  set cwd(e) {
    this._cwd = e;
  }
  get env() {
    return this._executor.env;
  }
  get outputHandler() {
    return this._executor.outputHandler;
  }
  chain() {
    return this;
  }
  push(e) {
    return this._queue.push(e), this._chain = this._chain.then(() => this.attemptTask(e));
  }
  async attemptTask(e) {
    const n = await this._scheduler.next(), r = () => this._queue.complete(e);
    try {
      const { logger: s } = this._queue.attempt(e);
      return await (kt(e) ? this.attemptEmptyTask(e, s) : this.attemptRemoteTask(e, s));
    } catch (s) {
      throw this.onFatalException(e, s);
    } finally {
      r(), n();
    }
  }
  onFatalException(e, n) {
    const r = n instanceof dist_O ? Object.assign(n, { task: e }) : new dist_O(e, n && String(n));
    return this._chain = Promise.resolve(), this._queue.fatal(r), r;
  }
  async attemptRemoteTask(e, n) {
    const r = this._plugins.exec("spawn.binary", "", this.taskContext(e, e.commands)), s = this._plugins.exec(
      "spawn.args",
      [...e.commands],
      this.taskContext(e, e.commands)
    ), o = await this.gitResponse(
      e,
      r,
      s,
      this.outputHandler,
      n.step("SPAWN")
    ), i = await this.handleTaskData(e, s, o, n.step("HANDLE"));
    return n("passing response to task's parser as a %s", e.format), en(e) ? Tt(e.parser, i) : Tt(e.parser, i.asStrings());
  }
  async attemptEmptyTask(e, n) {
    return n("empty task bypassing child process to call to task's parser"), e.parser(this);
  }
  handleTaskData(e, n, r, s) {
    const { exitCode: o, rejection: i, stdOut: a, stdErr: c } = r;
    return new Promise((y, w) => {
      s("Preparing to handle process response exitCode=%d stdOut=", o);
      const { error: T } = this._plugins.exec(
        "task.error",
        { error: i },
        {
          ...this.taskContext(e, n),
          ...r
        }
      );
      if (T && e.onError)
        return s.info("exitCode=%s handling with custom error handler"), e.onError(
          r,
          T,
          (k) => {
            s.info("custom error handler treated as success"), s("custom error returned a %s", ft(k)), y(
              new dist_z(
                Array.isArray(k) ? Buffer.concat(k) : k,
                Buffer.concat(c)
              )
            );
          },
          w
        );
      if (T)
        return s.info(
          "handling as error: exitCode=%s stdErr=%s rejection=%o",
          o,
          c.length,
          i
        ), w(T);
      s.info("retrieving task output complete"), y(new dist_z(Buffer.concat(a), Buffer.concat(c)));
    });
  }
  async gitResponse(e, n, r, s, o) {
    const i = o.sibling("output"), a = this._plugins.exec(
      "spawn.options",
      {
        cwd: this.cwd,
        env: this.env,
        windowsHide: !0
      },
      this.taskContext(e, e.commands)
    );
    return new Promise((c) => {
      const y = [], w = [];
      o.info("%s %o", n, r), o("%O", a);
      let T = this._beforeSpawn(e, r);
      if (T)
        return c({
          stdOut: y,
          stdErr: w,
          exitCode: 9901,
          rejection: T
        });
      this._plugins.exec("spawn.before", void 0, {
        ...this.taskContext(e, r),
        kill(C) {
          T = C || T;
        }
      });
      const k = (0,external_node_child_process_namespaceObject.spawn)(n, r, a);
      k.stdout.on(
        "data",
        Et(y, "stdOut", o, i.step("stdOut"))
      ), k.stderr.on(
        "data",
        Et(w, "stdErr", o, i.step("stdErr"))
      ), k.on("error", Mn(w, o)), s && (o("Passing child process stdOut/stdErr to custom outputHandler"), s(n, k.stdout, k.stderr, [...r])), this._plugins.exec("spawn.after", void 0, {
        ...this.taskContext(e, r),
        spawned: k,
        close(C, Te) {
          c({
            stdOut: y,
            stdErr: w,
            exitCode: C,
            rejection: T || Te
          });
        },
        kill(C) {
          k.killed || (T = C, k.kill("SIGINT"));
        }
      });
    });
  }
  _beforeSpawn(e, n) {
    let r;
    return this._plugins.exec("spawn.before", void 0, {
      ...this.taskContext(e, n),
      kill(s) {
        r = s || r;
      }
    }), r;
  }
  taskContext(e, n) {
    return {
      method: String(Me(e.commands) || ""),
      commands: n,
      env: { ...this.env },
      input: kt(e) ? void 0 : e.input
    };
  }
}
function Mn(t, e) {
  return (n) => {
    e("[ERROR] child process exception %o", n), t.push(Buffer.from(String(n.stack), "ascii"));
  };
}
function Et(t, e, n, r) {
  return (s) => {
    n("%s received %L bytes", e, s), r("%B", s), t.push(s);
  };
}
class Dn {
  constructor(e, n, r) {
    this.cwd = e, this._scheduler = n, this._plugins = r, this._chain = this.chain();
  }
  chain() {
    return new Pn(this, this._scheduler, this._plugins);
  }
  push(e) {
    return this._chain.push(e);
  }
}
function Ln(t, e, n = dist_W) {
  const r = (o) => {
    n(null, o);
  }, s = (o) => {
    o?.task === t && n(o, void 0);
  };
  e.then(r, s);
}
function St(t, e) {
  return tn((n) => {
    if (!Lt(t))
      throw new Error(`Git.cwd: cannot change to non-directory "${t}"`);
    return (e || n).cwd = t;
  });
}
function dist_Q(t) {
  const e = ["checkout", ...t];
  return e[1] === "-b" && e.includes("-B") && (e[1] = ct(e, "-B")), g(e);
}
function jn() {
  return {
    checkout() {
      return this._runTask(
        dist_Q(dist_h(arguments, 1)),
        u(arguments)
      );
    },
    checkoutBranch(t, e) {
      return this._runTask(
        dist_Q(["-b", t, e, ...dist_h(arguments)]),
        u(arguments)
      );
    },
    checkoutLocalBranch(t) {
      return this._runTask(
        dist_Q(["-b", t, ...dist_h(arguments)]),
        u(arguments)
      );
    }
  };
}
const Yt = (t, e, n) => {
  const r = ["clone", ...n];
  return m(t) && r.push(dist_c(t)), m(e) && r.push(dist_c(e)), g(r);
}, Bn = (t, e, n) => (dist_S(n, "--mirror"), Yt(t, e, n));
function Rt(t, e, n, ...r) {
  return m(n) ? e(n, d(r[0], m), dist_h(arguments)) : dist_b(`git.${t}() requires a string 'repoPath'`);
}
function In() {
  return {
    clone(t, ...e) {
      return this._runTask(
        Rt("clone", Yt, d(t, m), ...e),
        u(arguments)
      );
    },
    mirror(t, ...e) {
      return this._runTask(
        Rt("mirror", Bn, d(t, m), ...e),
        u(arguments)
      );
    }
  };
}
const Un = [
  new dist_l(/^\[([^\s]+)( \([^)]+\))? ([^\]]+)/, (t, [e, n, r]) => {
    t.branch = e, t.commit = r, t.root = !!n;
  }),
  new dist_l(/\s*Author:\s(.+)/i, (t, [e]) => {
    const n = e.split("<"), r = n.pop();
    !r || !r.includes("@") || (t.author = {
      email: r.substr(0, r.length - 1),
      name: n.join("<").trim()
    });
  }),
  new dist_l(
    /(\d+)[^,]*(?:,\s*(\d+)[^,]*)(?:,\s*(\d+))/g,
    (t, [e, n, r]) => {
      t.summary.changes = parseInt(e, 10) || 0, t.summary.insertions = parseInt(n, 10) || 0, t.summary.deletions = parseInt(r, 10) || 0;
    }
  ),
  new dist_l(
    /^(\d+)[^,]*(?:,\s*(\d+)[^(]+\(([+-]))?/,
    (t, [e, n, r]) => {
      t.summary.changes = parseInt(e, 10) || 0;
      const s = parseInt(n, 10) || 0;
      r === "-" ? t.summary.deletions = s : r === "+" && (t.summary.insertions = s);
    }
  )
];
function Fn(t) {
  return dist_E({
    author: null,
    branch: "",
    commit: "",
    root: !1,
    summary: {
      changes: 0,
      insertions: 0,
      deletions: 0
    }
  }, Un, t);
}
function Gn(t, e, n) {
  return {
    commands: [
      "-c",
      "core.abbrev=40",
      "commit",
      ...U(t, "-m"),
      ...e,
      ...n
    ],
    format: "utf-8",
    parser: Fn
  };
}
function zn() {
  return {
    commit(e, ...n) {
      const r = u(arguments), s = t(e) || Gn(
        v(e),
        v(d(n[0], dist_G, [])),
        [
          ...dist_L(d(n[1], dist_K, [])),
          ...dist_h(arguments, 0, !0)
        ]
      );
      return this._runTask(s, r);
    }
  };
  function t(e) {
    return !dist_G(e) && dist_b(
      "git.commit: requires the commit message to be supplied as a string/string[]"
    );
  }
}
function qn() {
  return {
    count: 0,
    garbage: 0,
    inPack: 0,
    packs: 0,
    prunePackable: 0,
    size: 0,
    sizeGarbage: 0,
    sizePack: 0
  };
}
const Wn = new dist_l(
  /([a-z-]+): (\d+)$/,
  (t, [e, n]) => {
    const r = jt(e);
    Object.hasOwn(t, r) && (t[r] = p(n));
  }
);
function Hn() {
  return {
    countObjects() {
      return this._runTask({
        commands: ["count-objects", "--verbose"],
        format: "utf-8",
        parser(t) {
          return dist_E(qn(), [Wn], t);
        }
      });
    }
  };
}
function Kn() {
  return {
    firstCommit() {
      return this._runTask(
        g(["rev-list", "--max-parents=0", "HEAD"], !0),
        u(arguments)
      );
    }
  };
}
function Vn(t, e) {
  const n = ["hash-object", t];
  return e && n.push("-w"), g(n, !0);
}
class dist_J {
  constructor(e, n, r, s) {
    this.bare = e, this.path = n, this.existing = r, this.gitDir = s;
  }
}
const Xn = /^Init.+ repository in (.+)$/, Yn = /^Rein.+ in (.+)$/;
function Qn(t, e, n) {
  const r = String(n).trim();
  let s;
  if (s = Xn.exec(r))
    return new dist_J(t, e, !1, s[1]);
  if (s = Yn.exec(r))
    return new dist_J(t, e, !0, s[1]);
  let o = "";
  const i = r.split(" ");
  for (; i.length; )
    if (i.shift() === "in") {
      o = i.join(" ");
      break;
    }
  return new dist_J(t, e, /^re/i.test(r), o);
}
const Qt = "--bare";
function Jn(t) {
  return t.includes(Qt);
}
function Zn(t = !1, e, n) {
  const r = ["init", ...n];
  return t && !Jn(r) && r.splice(1, 0, Qt), {
    commands: r,
    format: "utf-8",
    parser(s) {
      return Qn(r.includes("--bare"), e, s);
    }
  };
}
function tr(t) {
  return t === void 0 ? dist_b("interpretTrailers called without input content") : {
    format: "utf-8",
    parser(e) {
      return Object.fromEntries(
        ut(e, (n) => {
          const r = n.indexOf(":");
          return [
            jt(n.substring(0, r).toLowerCase()),
            n.substring(r + 2).trim()
          ];
        })
      );
    },
    commands: ["interpret-trailers", "--parse"],
    input: t
  };
}
function er() {
  return {
    interpretTrailers(t) {
      return this._runTask(
        tr(d(t, Be)),
        u(arguments)
      );
    }
  };
}
var dist_R = /* @__PURE__ */ ((t) => (t.NONE = "", t.STAT = "--stat", t.NUM_STAT = "--numstat", t.NAME_ONLY = "--name-only", t.NAME_STATUS = "--name-status", t))(dist_R || {});
const Jt = /^--(stat|numstat|name-only|name-status)(=|$)/;
function pt(t) {
  for (let e = 0; e < t.length; e++) {
    const n = Jt.exec(t[e]);
    if (n)
      return `--${n[1]}`;
  }
  return "";
}
function nr(t) {
  return Jt.test(t);
}
class rr {
  constructor() {
    this.changed = 0, this.deletions = 0, this.insertions = 0, this.files = [];
  }
}
const Ot = [
  new dist_l(
    /^(.+)\s+\|\s+(\d+)(\s+[+\-]+)?$/,
    (t, [e, n, r = ""]) => {
      t.files.push({
        file: e.trim(),
        changes: p(n),
        insertions: r.replace(/[^+]/g, "").length,
        deletions: r.replace(/[^-]/g, "").length,
        binary: !1
      });
    }
  ),
  new dist_l(
    /^(.+) \|\s+Bin ([0-9.]+) -> ([0-9.]+) ([a-z]+)/,
    (t, [e, n, r]) => {
      t.files.push({
        file: e.trim(),
        before: p(n),
        after: p(r),
        binary: !0
      });
    }
  ),
  new dist_l(/^(.+)\s+\|\s+Bin\s*$/, (t, [e]) => {
    t.files.push({
      file: e.trim(),
      before: 0,
      after: 0,
      binary: !0
    });
  }),
  new dist_l(
    /(\d+) files? changed\s*((?:, \d+ [^,]+){0,2})/,
    (t, [e, n]) => {
      const r = /(\d+) i/.exec(n), s = /(\d+) d/.exec(n);
      t.changed = p(e), t.insertions = p(r?.[1]), t.deletions = p(s?.[1]);
    }
  )
], sr = [
  new dist_l(
    /(\d+)\t(\d+)\t(.+)$/,
    (t, [e, n, r]) => {
      const s = p(e), o = p(n);
      t.changed++, t.insertions += s, t.deletions += o, t.files.push({
        file: r,
        changes: s + o,
        insertions: s,
        deletions: o,
        binary: !1
      });
    }
  ),
  new dist_l(/-\t-\t(.+)$/, (t, [e]) => {
    t.changed++, t.files.push({
      file: e,
      after: 0,
      before: 0,
      binary: !0
    });
  })
], or = [
  new dist_l(/(.+)$/, (t, [e]) => {
    t.changed++, t.files.push({
      file: e,
      changes: 0,
      insertions: 0,
      deletions: 0,
      binary: !1
    });
  })
], ir = [
  new dist_l(
    /([ACDMRTUXB])([0-9]{0,3})\t(.[^\t]*)(\t(.[^\t]*))?$/,
    (t, [e, n, r, s, o]) => {
      t.changed++, t.files.push({
        file: o ?? r,
        changes: 0,
        insertions: 0,
        deletions: 0,
        binary: !1,
        status: bt(_n(e) && e),
        from: bt(!!o && r !== o && r),
        similarity: p(n)
      });
    }
  )
], ar = {
  [dist_R.NONE]: Ot,
  [dist_R.STAT]: Ot,
  [dist_R.NUM_STAT]: sr,
  [dist_R.NAME_STATUS]: ir,
  [dist_R.NAME_ONLY]: or
};
function Zt(t = dist_R.NONE) {
  const e = ar[t];
  return (n) => dist_E(new rr(), e, n, !1);
}
const te = "òòòòòò ", dist_ee = " òò", dist_ne = " ò ", ur = ["hash", "date", "message", "refs", "author_name", "author_email"];
function cr(t, e) {
  return e.reduce(
    (n, r, s) => (n[r] = t[s] || "", n),
    /* @__PURE__ */ Object.create({ diff: null })
  );
}
function re(t = dist_ne, e = ur, n = dist_R.NONE) {
  const r = Zt(n);
  return function(s) {
    const o = dist_H(
      s.trim(),
      !1,
      te
    ).map(function(i) {
      const a = i.split(dist_ee), c = cr(a[0].split(t), e);
      return a.length > 1 && a[1].trim() && (c.diff = r(a[1])), c;
    });
    return {
      all: o,
      latest: o.length && o[0] || null,
      total: o.length
    };
  };
}
function fr(t) {
  let e = pt(t);
  const n = ["diff"];
  return e === dist_R.NONE && (e = dist_R.STAT, n.push("--stat=4096")), n.push(...t), dt(n) || {
    commands: n,
    format: "utf-8",
    parser: Zt(e)
  };
}
function dt(t) {
  const e = t.filter(nr);
  if (e.length > 1)
    return dist_b(
      `Summary flags are mutually exclusive - pick one of ${e.join(",")}`
    );
  if (e.length && t.includes("-z"))
    return dist_b(
      `Summary flag ${e} parsing is not compatible with null termination option '-z'`
    );
}
var se = /* @__PURE__ */ ((t) => (t[t["--pretty"] = 0] = "--pretty", t[t["max-count"] = 1] = "max-count", t[t.maxCount = 2] = "maxCount", t[t.n = 3] = "n", t[t.file = 4] = "file", t[t.format = 5] = "format", t[t.from = 6] = "from", t[t.to = 7] = "to", t[t.splitter = 8] = "splitter", t[t.symmetric = 9] = "symmetric", t[t.mailMap = 10] = "mailMap", t[t.multiLine = 11] = "multiLine", t[t.strictDate = 12] = "strictDate", t))(se || {});
function lr(t, e) {
  const n = [], r = [];
  return Object.keys(t).forEach((s) => {
    n.push(s), r.push(String(t[s]));
  }), [n, r.join(e)];
}
function hr(t) {
  return Object.keys(t).reduce((e, n) => (n in se || (e[n] = t[n]), e), {});
}
function dist_oe(t = {}, e = []) {
  const n = d(t.splitter, m, dist_ne), r = lt(t.format) ? t.format : {
    hash: "%H",
    date: t.strictDate === !1 ? "%ai" : "%aI",
    message: "%s",
    refs: "%D",
    body: t.multiLine ? "%B" : "%b",
    author_name: t.mailMap !== !1 ? "%aN" : "%an",
    author_email: t.mailMap !== !1 ? "%aE" : "%ae"
  }, [s, o] = lr(r, n), i = [], a = [
    `--pretty=format:${te}${o}${dist_ee}`,
    ...e
  ], c = t.n || t["max-count"] || t.maxCount;
  if (c && a.push(`--max-count=${c}`), t.from || t.to) {
    const y = t.symmetric !== !1 ? "..." : "..";
    i.push(`${t.from || ""}${y}${t.to || ""}`);
  }
  return m(t.file) && a.push("--follow", dist_c(t.file)), It(hr(t), a), {
    fields: s,
    splitter: n,
    commands: [...a, ...i]
  };
}
function mr(t, e, n) {
  const r = re(t, e, pt(n));
  return {
    commands: ["log", ...n],
    format: "utf-8",
    parser: r
  };
}
function pr() {
  return {
    log(...n) {
      const r = u(arguments), s = dist_oe(
        ht(arguments),
        dist_L(d(arguments[0], dist_K, []))
      ), o = e(...n) || dt(s.commands) || t(s);
      return this._runTask(o, r);
    }
  };
  function t(n) {
    return mr(n.splitter, n.fields, n.commands);
  }
  function e(n, r) {
    return m(n) && m(r) && dist_b(
      "git.log(string, string) should be replaced with git.log({ from: string, to: string })"
    );
  }
}
class dist_Z {
  constructor(e, n = null, r) {
    this.reason = e, this.file = n, this.meta = r;
  }
  toString() {
    return `${this.file}:${this.reason}`;
  }
}
class dr {
  constructor() {
    this.conflicts = [], this.merges = [], this.result = "success";
  }
  get failed() {
    return this.conflicts.length > 0;
  }
  get reason() {
    return this.result;
  }
  toString() {
    return this.conflicts.length ? `CONFLICTS: ${this.conflicts.join(", ")}` : "OK";
  }
}
class ie {
  constructor() {
    this.remoteMessages = {
      all: []
    }, this.created = [], this.deleted = [], this.files = [], this.deletions = {}, this.insertions = {}, this.summary = {
      changes: 0,
      deletions: 0,
      insertions: 0
    };
  }
}
class gr {
  constructor() {
    this.remote = "", this.hash = {
      local: "",
      remote: ""
    }, this.branch = {
      local: "",
      remote: ""
    }, this.message = "";
  }
  toString() {
    return this.message;
  }
}
function tt(t) {
  return t.objects = t.objects || {
    compressing: 0,
    counting: 0,
    enumerating: 0,
    packReused: 0,
    reused: { count: 0, delta: 0 },
    total: { count: 0, delta: 0 }
  };
}
function Ct(t) {
  const e = /^\s*(\d+)/.exec(t), n = /delta (\d+)/i.exec(t);
  return {
    count: p(e && e[1] || "0"),
    delta: p(n && n[1] || "0")
  };
}
const yr = [
  new dist_x(
    /^remote:\s*(enumerating|counting|compressing) objects: (\d+),/i,
    (t, [e, n]) => {
      const r = e.toLowerCase(), s = tt(t.remoteMessages);
      Object.assign(s, { [r]: p(n) });
    }
  ),
  new dist_x(
    /^remote:\s*(enumerating|counting|compressing) objects: \d+% \(\d+\/(\d+)\),/i,
    (t, [e, n]) => {
      const r = e.toLowerCase(), s = tt(t.remoteMessages);
      Object.assign(s, { [r]: p(n) });
    }
  ),
  new dist_x(
    /total ([^,]+), reused ([^,]+), pack-reused (\d+)/i,
    (t, [e, n, r]) => {
      const s = tt(t.remoteMessages);
      s.total = Ct(e), s.reused = Ct(n), s.packReused = p(r);
    }
  )
], wr = [
  new dist_x(/^remote:\s*(.+)$/, (t, [e]) => (t.remoteMessages.all.push(e.trim()), !1)),
  ...yr,
  new dist_x(
    [/create a (?:pull|merge) request/i, /\s(https?:\/\/\S+)$/],
    (t, [e]) => {
      t.remoteMessages.pullRequestUrl = e;
    }
  ),
  new dist_x(
    [/found (\d+) vulnerabilities.+\(([^)]+)\)/i, /\s(https?:\/\/\S+)$/],
    (t, [e, n, r]) => {
      t.remoteMessages.vulnerabilities = {
        count: p(e),
        summary: n,
        url: r
      };
    }
  )
];
function ae(t, e) {
  return dist_E({ remoteMessages: new br() }, wr, e);
}
class br {
  constructor() {
    this.all = [];
  }
}
const Tr = /^\s*(.+?)\s+\|\s+\d+\s*(\+*)(-*)/, kr = /(\d+)\D+((\d+)\D+\(\+\))?(\D+(\d+)\D+\(-\))?/, _r = /^(create|delete) mode \d+ (.+)/, vr = [
  new dist_l(Tr, (t, [e, n, r]) => {
    t.files.push(e), n && (t.insertions[e] = n.length), r && (t.deletions[e] = r.length);
  }),
  new dist_l(kr, (t, [e, , n, , r]) => n !== void 0 || r !== void 0 ? (t.summary.changes = +e || 0, t.summary.insertions = +n || 0, t.summary.deletions = +r || 0, !0) : !1),
  new dist_l(_r, (t, [e, n]) => {
    dist_S(t.files, n), dist_S(e === "create" ? t.created : t.deleted, n);
  })
], Er = [
  new dist_l(/^from\s(.+)$/i, (t, [e]) => {
    t.remote = e;
  }),
  new dist_l(/^fatal:\s(.+)$/, (t, [e]) => {
    t.message = e;
  }),
  new dist_l(
    /([a-z0-9]+)\.\.([a-z0-9]+)\s+(\S+)\s+->\s+(\S+)$/,
    (t, [e, n, r, s]) => {
      t.branch.local = r, t.hash.local = e, t.branch.remote = s, t.hash.remote = n;
    }
  )
], Sr = (t, e) => dist_E(new ie(), vr, [t, e]), ue = (t, e) => Object.assign(
  new ie(),
  Sr(t, e),
  ae(t, e)
);
function Rr(t, e) {
  const n = dist_E(new gr(), Er, [t, e]);
  return n.message && n;
}
const Or = [
  new dist_l(/^Auto-merging\s+(.+)$/, (t, [e]) => {
    t.merges.push(e);
  }),
  new dist_l(/^CONFLICT\s+\((.+)\): Merge conflict in (.+)$/, (t, [e, n]) => {
    t.conflicts.push(new dist_Z(e, n));
  }),
  new dist_l(
    /^CONFLICT\s+\((.+\/delete)\): (.+) deleted in (.+) and/,
    (t, [e, n, r]) => {
      t.conflicts.push(new dist_Z(e, n, { deleteRef: r }));
    }
  ),
  new dist_l(/^CONFLICT\s+\((.+)\):/, (t, [e]) => {
    t.conflicts.push(new dist_Z(e, null));
  }),
  new dist_l(/^Automatic merge failed;\s+(.+)$/, (t, [e]) => {
    t.result = e;
  })
], Cr = (t, e) => Object.assign(Ar(t), ue(t, e)), Ar = (t) => dist_E(new dr(), Or, t);
function At(t) {
  return t.length ? {
    commands: ["merge", ...t],
    format: "utf-8",
    parser(e, n) {
      const r = Cr(e, n);
      if (r.failed)
        throw new dist_at(r);
      return r;
    }
  } : dist_b("Git.merge requires at least one option");
}
function xr(t, e, n) {
  const r = n.includes("deleted"), s = n.includes("tag") || /^refs\/tags/.test(t), o = !n.includes("new");
  return {
    deleted: r,
    tag: s,
    branch: !s,
    new: !o,
    alreadyUpdated: o,
    local: t,
    remote: e
  };
}
const Nr = [
  new dist_l(/^Pushing to (.+)$/, (t, [e]) => {
    t.repo = e;
  }),
  new dist_l(/^updating local tracking ref '(.+)'/, (t, [e]) => {
    t.ref = {
      ...t.ref || {},
      local: e
    };
  }),
  new dist_l(/^[=*-]\s+([^:]+):(\S+)\s+\[(.+)]$/, (t, [e, n, r]) => {
    t.pushed.push(xr(e, n, r));
  }),
  new dist_l(
    /^Branch '([^']+)' set up to track remote branch '([^']+)' from '([^']+)'/,
    (t, [e, n, r]) => {
      t.branch = {
        ...t.branch || {},
        local: e,
        remote: n,
        remoteName: r
      };
    }
  ),
  new dist_l(
    /^([^:]+):(\S+)\s+([a-z0-9]+)\.\.([a-z0-9]+)$/,
    (t, [e, n, r, s]) => {
      t.update = {
        head: {
          local: e,
          remote: n
        },
        hash: {
          from: r,
          to: s
        }
      };
    }
  )
], $r = (t, e) => {
  const n = Pr(t, e), r = ae(t, e);
  return {
    ...n,
    ...r
  };
}, Pr = (t, e) => dist_E({ pushed: [] }, Nr, [t, e]);
function Mr(t = {}, e) {
  return dist_S(e, "--tags"), ce(t, e);
}
function ce(t = {}, e) {
  const n = ["push", ...e];
  return t.branch && n.splice(1, 0, t.branch), t.remote && n.splice(1, 0, t.remote), ct(n, "-v"), dist_S(n, "--verbose"), dist_S(n, "--porcelain"), {
    commands: n,
    format: "utf-8",
    parser: $r
  };
}
function Dr() {
  return {
    showBuffer() {
      const t = ["show", ...dist_h(arguments, 1)];
      return t.includes("--binary") || t.splice(1, 0, "--binary"), this._runTask(
        Gt(t),
        u(arguments)
      );
    },
    show() {
      const t = ["show", ...dist_h(arguments, 1)];
      return this._runTask(
        g(t),
        u(arguments)
      );
    }
  };
}
const Lr = /^(.+)\0(.+)$/;
class jr {
  constructor(e, n, r) {
    if (this.path = e, this.index = n, this.working_dir = r, n === "R" || r === "R") {
      const s = Lr.exec(e) || [null, e, e];
      this.from = s[2] || "", this.path = s[1] || "";
    }
  }
}
class Br {
  constructor() {
    this.not_added = [], this.conflicted = [], this.created = [], this.deleted = [], this.ignored = void 0, this.modified = [], this.renamed = [], this.files = [], this.staged = [], this.ahead = 0, this.behind = 0, this.current = null, this.tracking = null, this.detached = !1, this.isClean = () => !this.files.length;
  }
}
function xt(t) {
  const [e, n] = t.split(dist_I);
  return {
    from: n || e,
    to: e
  };
}
function dist_(t, e, n) {
  return [`${t}${e}`, n];
}
function et(t, ...e) {
  return e.map((n) => dist_(t, n, (r, s) => r.conflicted.push(s)));
}
const Ir = new Map([
  dist_(
    " ",
    "A",
    (t, e) => t.created.push(e)
  ),
  dist_(
    " ",
    "D",
    (t, e) => t.deleted.push(e)
  ),
  dist_(
    " ",
    "M",
    (t, e) => t.modified.push(e)
  ),
  dist_("A", " ", (t, e) => {
    t.created.push(e), t.staged.push(e);
  }),
  dist_("A", "M", (t, e) => {
    t.created.push(e), t.staged.push(e), t.modified.push(e);
  }),
  dist_("D", " ", (t, e) => {
    t.deleted.push(e), t.staged.push(e);
  }),
  dist_("M", " ", (t, e) => {
    t.modified.push(e), t.staged.push(e);
  }),
  dist_("M", "M", (t, e) => {
    t.modified.push(e), t.staged.push(e);
  }),
  dist_("R", " ", (t, e) => {
    t.renamed.push(xt(e));
  }),
  dist_("R", "M", (t, e) => {
    const n = xt(e);
    t.renamed.push(n), t.modified.push(n.to);
  }),
  dist_("!", "!", (t, e) => {
    (t.ignored = t.ignored || []).push(e);
  }),
  dist_(
    "?",
    "?",
    (t, e) => t.not_added.push(e)
  ),
  ...et(
    "A",
    "A",
    "U"
    /* UNMERGED */
  ),
  ...et(
    "D",
    "D",
    "U"
    /* UNMERGED */
  ),
  ...et(
    "U",
    "A",
    "D",
    "U"
    /* UNMERGED */
  ),
  [
    "##",
    (t, e) => {
      const n = /ahead (\d+)/, r = /behind (\d+)/, s = /^(.+?(?=(?:\.{3}|\s|$)))/, o = /\.{3}(\S*)/, i = /\son\s(\S+?)(?=\.{3}|$)/;
      let a = n.exec(e);
      t.ahead = a && +a[1] || 0, a = r.exec(e), t.behind = a && +a[1] || 0, a = s.exec(e), t.current = d(a?.[1], m, null), a = o.exec(e), t.tracking = d(a?.[1], m, null), a = i.exec(e), a && (t.current = d(a?.[1], m, t.current)), t.detached = /\(no branch\)/.test(e);
    }
  ]
]), Ur = function(t) {
  const e = t.split(dist_I), n = new Br();
  for (let r = 0, s = e.length; r < s; ) {
    let o = e[r++].trim();
    o && (o.charAt(0) === "R" && (o += dist_I + (e[r++] || "")), Fr(n, o));
  }
  return n;
};
function Fr(t, e) {
  const n = e.trim();
  switch (" ") {
    case n.charAt(2):
      return r(n.charAt(0), n.charAt(1), n.slice(3));
    case n.charAt(1):
      return r(" ", n.charAt(0), n.slice(2));
    default:
      return;
  }
  function r(s, o, i) {
    const a = `${s}${o}`, c = Ir.get(a);
    c && c(t, i), a !== "##" && a !== "!!" && t.files.push(new jr(i, s, o));
  }
}
const Gr = ["--null", "-z"];
function zr(t) {
  return {
    format: "utf-8",
    commands: [
      "status",
      "--porcelain",
      "-b",
      "-u",
      "--null",
      ...t.filter((n) => !Gr.includes(n))
    ],
    parser(n) {
      return Ur(n);
    }
  };
}
const fe = "installed=false";
function dist_q(t = 0, e = 0, n = 0, r = "", s = !0) {
  return Object.defineProperty(
    {
      major: t,
      minor: e,
      patch: n,
      agent: r,
      installed: s
    },
    "toString",
    {
      value() {
        return `${this.major}.${this.minor}.${this.patch}`;
      },
      configurable: !1,
      enumerable: !1
    }
  );
}
function qr() {
  return dist_q(0, 0, 0, "", !1);
}
function Wr() {
  return {
    version() {
      return this._runTask({
        commands: ["--version"],
        format: "utf-8",
        parser: Kr,
        onError(t, e, n, r) {
          if (t.exitCode === dist_V.NOT_FOUND)
            return n(Buffer.from(fe));
          r(e);
        }
      });
    }
  };
}
const Hr = [
  new dist_l(
    /version (\d+)\.(\d+)\.(\d+)(?:\s*\((.+)\))?/,
    (t, [e, n, r, s = ""]) => {
      Object.assign(
        t,
        dist_q(p(e), p(n), p(r), s)
      );
    }
  ),
  new dist_l(
    /version (\d+)\.(\d+)\.(\D+)(.+)?$/,
    (t, [e, n, r, s = ""]) => {
      Object.assign(t, dist_q(p(e), p(n), r, s));
    }
  )
];
function Kr(t) {
  return t === fe ? qr() : dist_E(dist_q(0, 0, 0, t), Hr, t);
}
class le {
  constructor(e) {
    this._executor = e;
  }
  _runTask(e, n) {
    const r = this._executor.chain(), s = r.push(e);
    return n && Ln(e, s, n), Object.create(this, {
      then: { value: s.then.bind(s) },
      catch: { value: s.catch.bind(s) },
      _executor: { value: r }
    });
  }
  add(e) {
    return this._runTask(
      g(["add", ...v(e)]),
      u(arguments)
    );
  }
  cwd(e) {
    const n = u(arguments);
    return typeof e == "string" ? this._runTask(St(e, this._executor), n) : typeof e?.path == "string" ? this._runTask(
      St(
        e.path,
        e.root && this._executor || void 0
      ),
      n
    ) : this._runTask(
      dist_b("Git.cwd: workingDirectory must be supplied as a string"),
      n
    );
  }
  hashObject(e, n) {
    return this._runTask(
      Vn(e, n === !0),
      u(arguments)
    );
  }
  init(e) {
    return this._runTask(
      Zn(e === !0, this._executor.cwd, dist_h(arguments)),
      u(arguments)
    );
  }
  merge() {
    return this._runTask(
      At(dist_h(arguments)),
      u(arguments)
    );
  }
  mergeFromTo(e, n) {
    return m(e) && m(n) ? this._runTask(
      At([e, n, ...dist_h(arguments)]),
      u(arguments, !1)
    ) : this._runTask(
      dist_b(
        "Git.mergeFromTo requires that the 'remote' and 'branch' arguments are supplied as strings"
      )
    );
  }
  outputHandler(e) {
    return this._executor.outputHandler = e, this;
  }
  push() {
    const e = ce(
      {
        remote: d(arguments[0], m),
        branch: d(arguments[1], m)
      },
      dist_h(arguments)
    );
    return this._runTask(e, u(arguments));
  }
  stash() {
    return this._runTask(
      g(["stash", ...dist_h(arguments)]),
      u(arguments)
    );
  }
  status() {
    return this._runTask(
      zr(dist_h(arguments)),
      u(arguments)
    );
  }
}
Object.assign(
  le.prototype,
  jn(),
  In(),
  zn(),
  Tn(),
  Hn(),
  Kn(),
  On(),
  er(),
  pr(),
  Dr(),
  Wr()
);
const Vr = /* @__PURE__ */ (() => {
  let t = 0;
  return () => {
    t++;
    const { promise: e, done: n } = (0,promise_deferred_dist/* createDeferred */.ud)();
    return {
      promise: e,
      done: n,
      id: t
    };
  };
})();
class Xr {
  constructor(e = 2) {
    this.concurrency = e, this.logger = dist_$("", "scheduler"), this.pending = [], this.running = [], this.logger("Constructed, concurrency=%s", e);
  }
  schedule() {
    if (!this.pending.length || this.running.length >= this.concurrency) {
      this.logger(
        "Schedule attempt ignored, pending=%s running=%s concurrency=%s",
        this.pending.length,
        this.running.length,
        this.concurrency
      );
      return;
    }
    const e = dist_S(this.running, this.pending.shift());
    this.logger("Attempting id=%s", e.id), e.done(() => {
      this.logger("Completing id=", e.id), ct(this.running, e), this.schedule();
    });
  }
  next() {
    const { promise: e, id: n } = dist_S(this.pending, Vr());
    return this.logger("Scheduling id=%s", n), this.schedule(), e;
  }
}
function Yr(t, e) {
  return g(["apply", ...e, ...t]);
}
var he = /* @__PURE__ */ ((t) => (t.CURRENT = "*", t.LINKED = "+", t))(he || {});
class Qr {
  constructor() {
    this.all = [], this.branches = {}, this.current = "", this.detached = !1;
  }
  push(e, n, r, s, o) {
    e === "*" && (this.detached = n, this.current = r), this.all.push(r), this.branches[r] = {
      current: e === "*",
      linkedWorkTree: e === "+",
      name: r,
      commit: s,
      label: o
    };
  }
}
const Jr = [
  new dist_l(
    /^([*+]\s)?\((?:HEAD )?detached (?:from|at) (\S+)\)\s+([a-z0-9]+)\s(.*)$/,
    (t, [e, n, r, s]) => {
      t.push(Nt(e), !0, n, r, s);
    }
  ),
  new dist_l(
    /^([*+]\s)?(\S+)\s+([a-z0-9]+)\s?(.*)$/s,
    (t, [e, n, r, s]) => {
      t.push(Nt(e), !1, n, r, s);
    }
  )
], Zr = new dist_l(/^(\S+)$/s, (t, [e]) => {
  t.push(he.CURRENT, !1, e, "", "");
});
function Nt(t) {
  return t ? t.charAt(0) : "";
}
function me(t, e = !1) {
  return dist_E(
    new Qr(),
    e ? [Zr] : Jr,
    t
  );
}
class ts {
  constructor() {
    this.all = [], this.branches = {}, this.errors = [];
  }
  get success() {
    return !this.errors.length;
  }
}
function es(t, e) {
  return {
    branch: t,
    hash: e,
    success: !0
  };
}
function ns(t) {
  return {
    branch: t,
    hash: null,
    success: !1
  };
}
const rs = /(\S+)\s+\(\S+\s([^)]+)\)/, pe = /^error[^']+'([^']+)'/m, ss = [
  new dist_l(rs, (t, [e, n]) => {
    const r = es(e, n);
    t.all.push(r), t.branches[e] = r;
  }),
  new dist_l(pe, (t, [e]) => {
    const n = ns(e);
    t.errors.push(n), t.all.push(n), t.branches[e] = n;
  })
], gt = (t, e) => dist_E(new ts(), ss, [t, e]);
function de(t, e) {
  return e === dist_V.ERROR && pe.test(t);
}
function os(t) {
  const e = ["-d", "-D", "--delete"];
  return t.some((n) => e.includes(n));
}
function is(t) {
  const e = os(t), n = t.includes("--show-current"), r = ["branch", ...t];
  return r.length === 1 && r.push("-a"), r.includes("-v") || r.splice(1, 0, "-v"), {
    format: "utf-8",
    commands: r,
    parser(s, o) {
      return e ? gt(s, o).all[0] : me(s, n);
    }
  };
}
function as() {
  return {
    format: "utf-8",
    commands: ["branch", "-v"],
    parser(t) {
      return me(t);
    }
  };
}
function us(t, e = !1) {
  return {
    format: "utf-8",
    commands: ["branch", "-v", e ? "-D" : "-d", ...t],
    parser(n, r) {
      return gt(n, r);
    },
    onError({ exitCode: n, stdOut: r }, s, o, i) {
      if (!de(String(s), n))
        return i(s);
      o(r);
    }
  };
}
function cs(t, e = !1) {
  const n = {
    format: "utf-8",
    commands: ["branch", "-v", e ? "-D" : "-d", t],
    parser(r, s) {
      return gt(r, s).branches[t];
    },
    onError({ exitCode: r, stdErr: s, stdOut: o }, i, a, c) {
      if (!de(String(i), r))
        return c(i);
      throw new dist_at(
        n.parser(dist_F(o), dist_F(s)),
        String(i)
      );
    }
  };
  return n;
}
function fs(t) {
  return {
    commands: ["check-ignore", ...t],
    format: "utf-8",
    parser: ls
  };
}
function ls(t) {
  return t.split(/\n/g).map(hs).filter(Boolean);
}
function hs(t) {
  const e = t.trim().replace(/^["']|["']$/g, "");
  return e && (0,external_node_path_namespaceObject.normalize)(e);
}
const ms = [
  new dist_l(/From (.+)$/, (t, [e]) => {
    t.remote = e;
  }),
  new dist_l(/\* \[new branch]\s+(\S+)\s*-> (.+)$/, (t, [e, n]) => {
    t.branches.push({
      name: e,
      tracking: n
    });
  }),
  new dist_l(/\* \[new tag]\s+(\S+)\s*-> (.+)$/, (t, [e, n]) => {
    t.tags.push({
      name: e,
      tracking: n
    });
  }),
  new dist_l(/- \[deleted]\s+\S+\s*-> (.+)$/, (t, [e]) => {
    t.deleted.push({
      tracking: e
    });
  }),
  new dist_l(
    /\s*([^.]+)\.\.(\S+)\s+(\S+)\s*-> (.+)$/,
    (t, [e, n, r, s]) => {
      t.updated.push({
        name: r,
        tracking: s,
        to: n,
        from: e
      });
    }
  )
];
function ps(t, e) {
  return dist_E({
    raw: t,
    remote: null,
    branches: [],
    tags: [],
    updated: [],
    deleted: []
  }, ms, [t, e]);
}
function ds(t) {
  return /^--upload-pack(=|$)/.test(t);
}
function gs(t, e, n) {
  const r = ["fetch", ...n];
  return t && e && r.push(t, e), r.find(ds) ? dist_b("git.fetch: potential exploit argument blocked.") : {
    commands: r,
    format: "utf-8",
    parser: ps
  };
}
const ys = [
  new dist_l(/^Renaming (.+) to (.+)$/, (t, [e, n]) => {
    t.moves.push({ from: e, to: n });
  })
];
function ws(t) {
  return dist_E({ moves: [] }, ys, t);
}
function bs(t, e) {
  return {
    commands: ["mv", "-v", ...v(t), e],
    format: "utf-8",
    parser: ws
  };
}
function Ts(t, e, n) {
  const r = ["pull", ...n];
  return t && e && r.splice(1, 0, t, e), {
    commands: r,
    format: "utf-8",
    parser(s, o) {
      return ue(s, o);
    },
    onError(s, o, i, a) {
      const c = Rr(
        dist_F(s.stdOut),
        dist_F(s.stdErr)
      );
      if (c)
        return a(new dist_at(c));
      a(o);
    }
  };
}
function ks(t) {
  const e = {};
  return ge(t, ([n]) => e[n] = { name: n }), Object.values(e);
}
function _s(t) {
  const e = {};
  return ge(t, ([n, r, s]) => {
    Object.hasOwn(e, n) || (e[n] = {
      name: n,
      refs: { fetch: "", push: "" }
    }), s && r && (e[n].refs[s.replace(/[^a-z]/g, "")] = r);
  }), Object.values(e);
}
function ge(t, e) {
  ut(t, (n) => e(n.split(/\s+/)));
}
function vs(t, e, n) {
  return g(["remote", "add", ...n, t, e]);
}
function Es(t) {
  const e = ["remote"];
  return t && e.push("-v"), {
    commands: e,
    format: "utf-8",
    parser: t ? _s : ks
  };
}
function Ss(t) {
  const e = [...t];
  return e[0] !== "ls-remote" && e.unshift("ls-remote"), g(e);
}
function Rs(t) {
  const e = [...t];
  return e[0] !== "remote" && e.unshift("remote"), g(e);
}
function Os(t) {
  return g(["remote", "remove", t]);
}
function Cs(t = {}, e) {
  const n = dist_oe(t), r = ["stash", "list", ...n.commands, ...e], s = re(
    n.splitter,
    n.fields,
    pt(r)
  );
  return dt(r) || {
    commands: r,
    format: "utf-8",
    parser: s
  };
}
function As(t, e) {
  return dist_X(["add", t, e]);
}
function xs(t) {
  return dist_X(["init", ...t]);
}
function dist_X(t) {
  const e = [...t];
  return e[0] !== "submodule" && e.unshift("submodule"), g(e);
}
function Ns(t) {
  return dist_X(["update", ...t]);
}
class $s {
  constructor(e, n) {
    this.all = e, this.latest = n;
  }
}
const Ps = function(t, e = !1) {
  const n = t.split(`
`).map(Ds).filter(Boolean);
  e || n.sort(function(s, o) {
    const i = s.split("."), a = o.split(".");
    if (i.length === 1 || a.length === 1)
      return Ms(dist_B(i[0]), dist_B(a[0]));
    for (let c = 0, y = Math.max(i.length, a.length); c < y; c++) {
      const w = ye(dist_B(i[c]), dist_B(a[c]));
      if (w)
        return w;
    }
    return 0;
  });
  const r = e ? n[0] : [...n].reverse().find((s) => s.indexOf(".") >= 0);
  return new $s(n, r);
};
function Ms(t, e) {
  const n = Number.isNaN(t), r = Number.isNaN(e);
  return n !== r ? n ? 1 : -1 : n ? ye(t, e) : 0;
}
function ye(t, e) {
  return t === e ? 0 : t > e ? 1 : -1;
}
function Ds(t) {
  return t.trim();
}
function dist_B(t) {
  return typeof t == "string" && parseInt(t.replace(/^\D+/g, ""), 10) || 0;
}
function Ls(t = []) {
  const e = t.some((n) => /^--sort=/.test(n));
  return {
    format: "utf-8",
    commands: ["tag", "-l", ...t],
    parser(n) {
      return Ps(n, e);
    }
  };
}
function js(t) {
  return {
    format: "utf-8",
    commands: ["tag", t],
    parser() {
      return { name: t };
    }
  };
}
function Bs(t, e) {
  return {
    format: "utf-8",
    commands: ["tag", "-a", "-m", e, t],
    parser() {
      return { name: t };
    }
  };
}
function dist_f(t, e) {
  this._plugins = e, this._executor = new Dn(
    t.baseDir,
    new Xr(t.maxConcurrentProcesses),
    e
  ), this._trimmed = t.trimmed;
}
(dist_f.prototype = Object.create(le.prototype)).constructor = dist_f;
dist_f.prototype.customBinary = function(t) {
  return this._plugins.reconfigure("binary", t), this;
};
dist_f.prototype.env = function(t, e) {
  return arguments.length === 1 && typeof t == "object" ? this._executor.env = t : (this._executor.env = this._executor.env || {})[t] = e, this;
};
dist_f.prototype.stashList = function(t) {
  return this._runTask(
    Cs(
      ht(arguments) || {},
      dist_K(t) && t || []
    ),
    u(arguments)
  );
};
dist_f.prototype.mv = function(t, e) {
  return this._runTask(bs(t, e), u(arguments));
};
dist_f.prototype.checkoutLatestTag = function(t) {
  var e = this;
  return this.pull(function() {
    e.tags(function(n, r) {
      e.checkout(r.latest, t);
    });
  });
};
dist_f.prototype.pull = function(t, e, n, r) {
  return this._runTask(
    Ts(
      d(t, m),
      d(e, m),
      dist_h(arguments)
    ),
    u(arguments)
  );
};
dist_f.prototype.fetch = function(t, e) {
  return this._runTask(
    gs(
      d(t, m),
      d(e, m),
      dist_h(arguments)
    ),
    u(arguments)
  );
};
dist_f.prototype.tags = function(t, e) {
  return this._runTask(
    Ls(dist_h(arguments)),
    u(arguments)
  );
};
dist_f.prototype.rebase = function() {
  return this._runTask(
    g(["rebase", ...dist_h(arguments)]),
    u(arguments)
  );
};
dist_f.prototype.reset = function(t) {
  return this._runTask(
    An(xn(t), dist_h(arguments)),
    u(arguments)
  );
};
dist_f.prototype.revert = function(t) {
  const e = u(arguments);
  return typeof t != "string" ? this._runTask(dist_b("Commit must be a string"), e) : this._runTask(
    g(["revert", ...dist_h(arguments, 0, !0), t]),
    e
  );
};
dist_f.prototype.addTag = function(t) {
  const e = typeof t == "string" ? js(t) : dist_b("Git.addTag requires a tag name");
  return this._runTask(e, u(arguments));
};
dist_f.prototype.addAnnotatedTag = function(t, e) {
  return this._runTask(
    Bs(t, e),
    u(arguments)
  );
};
dist_f.prototype.deleteLocalBranch = function(t, e, n) {
  return this._runTask(
    cs(t, typeof e == "boolean" ? e : !1),
    u(arguments)
  );
};
dist_f.prototype.deleteLocalBranches = function(t, e, n) {
  return this._runTask(
    us(t, typeof e == "boolean" ? e : !1),
    u(arguments)
  );
};
dist_f.prototype.branch = function(t, e) {
  return this._runTask(
    is(dist_h(arguments)),
    u(arguments)
  );
};
dist_f.prototype.branchLocal = function(t) {
  return this._runTask(as(), u(arguments));
};
dist_f.prototype.raw = function(t) {
  const e = !Array.isArray(t), n = [].slice.call(e ? arguments : t, 0);
  for (let s = 0; s < n.length && e; s++)
    if (!st(n[s])) {
      n.splice(s, n.length - s);
      break;
    }
  n.push(...dist_h(arguments, 0, !0));
  var r = u(arguments);
  return n.length ? this._runTask(g(n, this._trimmed), r) : this._runTask(
    dist_b("Raw: must supply one or more command to execute"),
    r
  );
};
dist_f.prototype.submoduleAdd = function(t, e, n) {
  return this._runTask(As(t, e), u(arguments));
};
dist_f.prototype.submoduleUpdate = function(t, e) {
  return this._runTask(
    Ns(dist_h(arguments, !0)),
    u(arguments)
  );
};
dist_f.prototype.submoduleInit = function(t, e) {
  return this._runTask(
    xs(dist_h(arguments, !0)),
    u(arguments)
  );
};
dist_f.prototype.subModule = function(t, e) {
  return this._runTask(
    dist_X(dist_h(arguments)),
    u(arguments)
  );
};
dist_f.prototype.listRemote = function() {
  return this._runTask(
    Ss(dist_h(arguments)),
    u(arguments)
  );
};
dist_f.prototype.addRemote = function(t, e, n) {
  return this._runTask(
    vs(t, e, dist_h(arguments)),
    u(arguments)
  );
};
dist_f.prototype.removeRemote = function(t, e) {
  return this._runTask(Os(t), u(arguments));
};
dist_f.prototype.getRemotes = function(t, e) {
  return this._runTask(Es(t === !0), u(arguments));
};
dist_f.prototype.remote = function(t, e) {
  return this._runTask(
    Rs(dist_h(arguments)),
    u(arguments)
  );
};
dist_f.prototype.tag = function(t, e) {
  const n = dist_h(arguments);
  return n[0] !== "tag" && n.unshift("tag"), this._runTask(g(n), u(arguments));
};
dist_f.prototype.updateServerInfo = function(t) {
  return this._runTask(
    g(["update-server-info"]),
    u(arguments)
  );
};
dist_f.prototype.pushTags = function(t, e) {
  const n = Mr(
    { remote: d(t, m) },
    dist_h(arguments)
  );
  return this._runTask(n, u(arguments));
};
dist_f.prototype.rm = function(t) {
  return this._runTask(
    g(["rm", "-f", ...v(t)]),
    u(arguments)
  );
};
dist_f.prototype.rmKeepLocal = function(t) {
  return this._runTask(
    g(["rm", "--cached", ...v(t)]),
    u(arguments)
  );
};
dist_f.prototype.catFile = function(t, e) {
  return this._catFile("utf-8", arguments);
};
dist_f.prototype.binaryCatFile = function() {
  return this._catFile("buffer", arguments);
};
dist_f.prototype._catFile = function(t, e) {
  var n = u(e), r = ["cat-file"], s = e[0];
  if (typeof s == "string")
    return this._runTask(
      dist_b("Git.catFile: options must be supplied as an array of strings"),
      n
    );
  Array.isArray(s) && r.push.apply(r, s);
  const o = t === "buffer" ? Gt(r) : g(r);
  return this._runTask(o, n);
};
dist_f.prototype.diff = function(t, e) {
  const n = m(t) ? dist_b(
    "git.diff: supplying options as a single string is no longer supported, switch to an array of strings"
  ) : g(["diff", ...dist_h(arguments)]);
  return this._runTask(n, u(arguments));
};
dist_f.prototype.diffSummary = function() {
  return this._runTask(
    fr(dist_h(arguments, 1)),
    u(arguments)
  );
};
dist_f.prototype.applyPatch = function(t) {
  const e = dist_G(t) ? Yr(v(t), dist_h([].slice.call(arguments, 1))) : dist_b(
    "git.applyPatch requires one or more string patches as the first argument"
  );
  return this._runTask(e, u(arguments));
};
dist_f.prototype.revparse = function() {
  const t = ["rev-parse", ...dist_h(arguments, !0)];
  return this._runTask(
    g(t, !0),
    u(arguments)
  );
};
dist_f.prototype.clean = function(t, e, n) {
  const r = un(t), s = r && t.join("") || d(t, m) || "", o = dist_h([].slice.call(arguments, r ? 1 : 0));
  return this._runTask(
    on(s, o),
    u(arguments)
  );
};
dist_f.prototype.exec = function(t) {
  const e = {
    commands: [],
    format: "utf-8",
    parser() {
      typeof t == "function" && t();
    }
  };
  return this._runTask(e);
};
dist_f.prototype.checkIgnore = function(t, e) {
  return this._runTask(
    fs(v(d(t, dist_G, []))),
    u(arguments)
  );
};
dist_f.prototype.checkIsRepo = function(t, e) {
  return this._runTask(
    We(d(t, m)),
    u(arguments)
  );
};
function Is(t) {
  return t ? [{
    type: "spawn.before",
    action(r, s) {
      t.aborted && s.kill(new dist_A(void 0, "abort", "Abort already signaled"));
    }
  }, {
    type: "spawn.after",
    action(r, s) {
      function o() {
        s.kill(new dist_A(void 0, "abort", "Abort signal received"));
      }
      t.addEventListener("abort", o), s.spawned.on("close", () => t.removeEventListener("abort", o));
    }
  }] : void 0;
}
const Us = dist_$("", "plugin:allowEnvironment");
function Fs(t, e = !1) {
  const n = new Set(t.map((r) => r.toLowerCase().trim()));
  return {
    type: "spawn.options",
    action(r, s) {
      const o = { ...r.env ?? process.env }, i = new Set(
        Object.keys(s.env).map((a) => a.toLowerCase().trim())
      );
      for (const a of Object.keys(o)) {
        const c = a.toLowerCase().trim();
        if (!(!Gs(c) || n.has(c))) {
          if (i.has(c))
            throw new dist_A(
              void 0,
              "allowEnvironment",
              `Use of "${a}" is blocked by the environment guard - add it to the allowEnvironment option to permit it`
            );
          Us("removing ambient guarded environment variable %s", a), delete o[a];
        }
      }
      return {
        ...r,
        env: {
          ...o,
          GIT_TEST_DISALLOW_ABBREVIATED_OPTIONS: String(!e)
        }
      };
    }
  };
}
function Gs(t) {
  const e = t.toLowerCase().trim();
  return e.startsWith("git_") || _(e);
}
function zs(t = {}) {
  return {
    type: "spawn.args",
    action(e, { env: n }) {
      for (const r of oe(e, n))
        if (t[r.category] !== !0)
          throw new dist_A(void 0, "unsafe", r.message);
      return e;
    }
  };
}
function qs(t) {
  const e = U(t, "-c");
  return {
    type: "spawn.args",
    action(n) {
      return [...e, ...n];
    }
  };
}
const $t = (0,promise_deferred_dist/* deferred */.yX)().promise;
function Ws({
  onClose: t = !0,
  onExit: e = 50
} = {}) {
  function n() {
    let s = -1;
    const o = {
      close: (0,promise_deferred_dist/* deferred */.yX)(),
      closeTimeout: (0,promise_deferred_dist/* deferred */.yX)(),
      exit: (0,promise_deferred_dist/* deferred */.yX)(),
      exitTimeout: (0,promise_deferred_dist/* deferred */.yX)()
    }, i = Promise.race([
      t === !1 ? $t : o.closeTimeout.promise,
      e === !1 ? $t : o.exitTimeout.promise
    ]);
    return r(t, o.close, o.closeTimeout), r(e, o.exit, o.exitTimeout), {
      close(a) {
        s = a, o.close.done();
      },
      exit(a) {
        s = a, o.exit.done();
      },
      get exitCode() {
        return s;
      },
      result: i
    };
  }
  function r(s, o, i) {
    s !== !1 && (s === !0 ? o.promise : o.promise.then(() => wt(s))).then(i.done);
  }
  return {
    type: "spawn.after",
    async action(s, { spawned: o, close: i }) {
      const a = n();
      let c = !0, y = () => {
        c = !1;
      };
      o.stdout?.on("data", y), o.stderr?.on("data", y), o.on("error", y), o.on("close", (w) => a.close(w)), o.on("exit", (w) => a.exit(w));
      try {
        await a.result, c && await wt(50), i(a.exitCode);
      } catch (w) {
        i(a.exitCode, w);
      }
    }
  };
}
const we = dist_$("", "plugin:binary"), Hs = "Invalid value supplied for custom binary, requires a single string or an array containing either one or two strings", Ks = "Invalid value supplied for custom binary, restricted characters must be removed or supply the unsafe.allowUnsafeCustomBinary option";
function Vs(t) {
  return !t || !/^([a-z]:)?([a-z0-9/.\\_~-]+)$/i.test(t);
}
function Pt(t, e) {
  if (t.length < 1 || t.length > 2)
    throw new dist_A(void 0, "binary", Hs);
  if (t.some(Vs))
    if (e)
      we("permitted unsafe binary %o", t);
    else
      throw new dist_A(void 0, "binary", Ks);
  const [r, s] = t;
  return {
    binary: r,
    prefix: s
  };
}
function Xs(t, e = ["git"], n = !1) {
  let r = Pt(v(e), n);
  t.on("binary", (s) => {
    r = Pt(v(s), n), we.info("reconfiguring %o", r);
  }), t.append("spawn.binary", () => r.binary), t.append("spawn.args", (s) => r.prefix ? [r.prefix, ...s] : s);
}
const be = {
  DISALLOWED_ABBREVIATED: {
    text: "disallowed abbreviated or ambiguous option",
    solution: "Unambiguous abbreviated options blocked with unsafe.allowAbbreviatedOptions setting: {message}"
  },
  UNKNOWN: {
    text: "~ unknown ~",
    solution: void 0
  }
};
function Ys(t) {
  if (!t)
    return "UNKNOWN";
  for (const [e, { text: n }] of Object.entries(be))
    if (t.startsWith(`fatal: ${n}`))
      return e;
  return "UNKNOWN";
}
class Qs extends dist_O {
  constructor(e = "") {
    const n = Ys(e);
    super(void 0, be[n].solution?.replace("{message}", e) ?? e), this.reason = n;
  }
}
function Js(t) {
  return !!(t.exitCode && t.stdErr.length);
}
function Zs(t) {
  return Buffer.concat([...t.stdOut, ...t.stdErr]);
}
function to(t = !1, e = Js, n = Zs) {
  return (r, s) => !t && r || !e(s) ? r : n(s);
}
function eo(t, e) {
  return t === 128 && e.startsWith("fatal:") ? new Qs(e) : new dist_O(void 0, e);
}
function Mt(t) {
  return {
    type: "task.error",
    action(e, n) {
      const r = t(e.error, {
        stdErr: n.stdErr,
        stdOut: n.stdOut,
        exitCode: n.exitCode
      });
      return Buffer.isBuffer(r) ? {
        error: eo(n.exitCode, r.toString("utf-8"))
      } : {
        error: r
      };
    }
  };
}
const nt = dist_$("", "plugin:input");
function no(t) {
  return {
    type: "spawn.after",
    action(e, { commands: n, input: r, spawned: { stdin: s } }) {
      if (!s)
        return;
      const o = t?.([...n]) ?? r;
      if (!o)
        return nt("generated zero length content, not writing to stdin");
      nt("writing %s bytes to stdin", Le(o)), s.on("error", (i) => {
        i.code !== "EPIPE" && nt("[ERROR] stdin error %o", i);
      }), s.end(o);
    }
  };
}
class ro {
  constructor() {
    this.plugins = /* @__PURE__ */ new Set(), this.events = new external_node_events_namespaceObject.EventEmitter();
  }
  on(e, n) {
    this.events.on(e, n);
  }
  reconfigure(e, n) {
    this.events.emit(e, n);
  }
  append(e, n) {
    const r = dist_S(this.plugins, { type: e, action: n });
    return () => this.plugins.delete(r);
  }
  add(e) {
    const n = [];
    return v(e).forEach(
      (r) => {
        r && this.plugins.add(dist_S(n, r));
      }
    ), () => {
      n.forEach((r) => {
        this.plugins.delete(r);
      });
    };
  }
  exec(e, n, r) {
    let s = n;
    const o = Object.freeze(Object.create(r));
    for (const i of this.plugins)
      i.type === e && (s = i.action(s, o));
    return s;
  }
}
function so(t) {
  const e = "--progress", n = ["checkout", "clone", "fetch", "pull", "push"];
  return [{
    type: "spawn.args",
    action(o, i) {
      return n.includes(i.method) ? De(o, e) : o;
    }
  }, {
    type: "spawn.after",
    action(o, i) {
      i.commands.includes(e) && i.spawned.stderr?.on("data", (a) => {
        const c = /^([\s\S]+?):\s*(\d+)% \((\d+)\/(\d+)\)/.exec(a.toString("utf8"));
        c && t({
          method: i.method,
          stage: oo(c[1]),
          progress: p(c[2]),
          processed: p(c[3]),
          total: p(c[4])
        });
      });
    }
  }];
}
function oo(t) {
  return String(t.toLowerCase().split(" ", 1)) || "unknown";
}
function io(t) {
  const e = je(t, ["uid", "gid"]);
  return {
    type: "spawn.options",
    action(n) {
      return { ...e, ...n };
    }
  };
}
function ao() {
  return {
    type: "spawn.args",
    action(t) {
      const e = [];
      let n;
      function r(s) {
        (n = n || []).push(...s);
      }
      for (let s = 0; s < t.length; s++) {
        const o = t[s];
        if (dist_r(o)) {
          r(dist_o(o));
          continue;
        }
        if (o === "--") {
          r(
            t.slice(s + 1).flatMap((i) => dist_r(i) && dist_o(i) || i)
          );
          break;
        }
        e.push(o);
      }
      return n ? [...e, "--", ...n.map(String)] : e;
    }
  };
}
function uo({
  block: t,
  stdErr: e = !0,
  stdOut: n = !0
}) {
  if (t > 0)
    return {
      type: "spawn.after",
      action(r, s) {
        let o;
        function i() {
          o && clearTimeout(o), o = setTimeout(c, t);
        }
        function a() {
          s.spawned.stdout?.off("data", i), s.spawned.stderr?.off("data", i), s.spawned.off("exit", a), s.spawned.off("close", a), o && clearTimeout(o);
        }
        function c() {
          a(), s.kill(new dist_A(void 0, "timeout", "block timeout reached"));
        }
        n && s.spawned.stdout?.on("data", i), e && s.spawned.stderr?.on("data", i), s.spawned.on("exit", a), s.spawned.on("close", a), i();
      }
    };
}
const wo = (t, e) => {
  const n = new ro(), r = Ge(
    t && (typeof t == "string" ? { baseDir: t } : t) || {},
    e
  );
  if (!Lt(r.baseDir))
    throw new Ae(
      r,
      "Cannot use simple-git on a directory that does not exist"
    );
  return Array.isArray(r.config) && n.add(qs(r.config)), n.add(zs(r.unsafe)), n.add(Ws(r.completion)), r.abort && n.add(Is(r.abort)), r.progress && n.add(so(r.progress)), r.timeout && n.add(uo(r.timeout)), r.spawnOptions && n.add(io(r.spawnOptions)), n.add(ao()), n.add(no(r.input)), n.add(Mt(to(!0))), r.errors && n.add(Mt(r.errors)), Xs(n, r.binary, r.unsafe?.allowUnsafeCustomBinary), n.add(
    Fs(r.allowEnvironment ?? [], r.unsafe?.allowAbbreviatedOptions)
  ), new dist_f(r, n);
};

//# sourceMappingURL=index.mjs.map

;// CONCATENATED MODULE: ./src/git/exec.ts


/**
 * Running git: every git process stepchain starts goes through this module and
 * its one environment policy (`gitEnv`). Plumbing (snapshots, ref reads) goes
 * through `gitSync`, a plain synchronous `git` process, so `recordStep` stays
 * synchronous; the check's reads of a base commit through `gitRun` (async,
 * bytes); porcelain (worktrees, branches, status) through simple-git (`gitAt`).
 */
/** A git command that failed: one line naming the command and git's own message. */
class GitCommandError extends Error {
    args;
    status;
    stderr;
    name = 'GitCommandError';
    constructor(args, status, stderr) {
        super(`git ${args
            .filter((a) => !a.includes('\n'))
            .slice(0, 3)
            .join(' ')}: ${firstLine(stderr) || `exit ${status}`}`);
        this.args = args;
        this.status = status;
        this.stderr = stderr;
    }
}
function firstLine(s) {
    return (s
        .split('\n')
        .map((l) => l.trim())
        .find((l) => l.length > 0 && !l.startsWith('hint:')) ?? '');
}
/**
 * The one environment policy for every git process stepchain starts (plumbing,
 * porcelain and the check's reads of a base commit). The caller's environment is
 * kept except git's own variables: every `GIT_*` is dropped unless it is on the
 * list below. A dropped variable could point git at another repository, index or
 * object store (GIT_DIR, GIT_WORK_TREE, GIT_INDEX_FILE, GIT_OBJECT_DIRECTORY,
 * GIT_ALTERNATE_OBJECT_DIRECTORIES, GIT_COMMON_DIR), inject configuration
 * (GIT_CONFIG, GIT_CONFIG_GLOBAL, GIT_CONFIG_SYSTEM, GIT_CONFIG_COUNT/KEY_n/VALUE_n,
 * GIT_CONFIG_PARAMETERS: `url.*.insteadOf`, `core.fsmonitor`...), change what a
 * repository is found or what it holds (GIT_CEILING_DIRECTORIES,
 * GIT_DISCOVERY_ACROSS_FILESYSTEM, GIT_NAMESPACE, GIT_REPLACE_REF_BASE,
 * GIT_GRAFT_FILE, GIT_SHALLOW_FILE, GIT_QUARANTINE_PATH), change how pathspecs
 * match (GIT_*_PATHSPECS) or which programs git runs (GIT_EXEC_PATH, GIT_EDITOR,
 * GIT_PAGER, GIT_EXTERNAL_DIFF, GIT_TEMPLATE_DIR). A hook's GIT_INDEX_FILE or a
 * CI job's GIT_DIR must never make stepchain read another repository and pass a
 * rewritten history. What a caller needs (a temporary index for a snapshot) it
 * passes deliberately as `extra`.
 */
const KEPT = new Set([
    // Transport and credentials: fetching a PR's base commit must work as the runner set it up.
    'GIT_SSH',
    'GIT_SSH_COMMAND',
    'GIT_SSH_VARIANT',
    'GIT_ASKPASS',
    'GIT_SSL_CAINFO',
    'GIT_SSL_CAPATH',
    'GIT_SSL_CERT',
    'GIT_SSL_KEY',
    'GIT_SSL_NO_VERIFY',
    'GIT_SSL_VERSION',
    'GIT_SSL_CIPHER_LIST',
    'GIT_HTTP_PROXY_AUTHMETHOD',
    'GIT_HTTP_USER_AGENT',
    'GIT_HTTP_LOW_SPEED_LIMIT',
    'GIT_HTTP_LOW_SPEED_TIME',
    'GIT_PROXY_SSL_CERT',
    'GIT_PROXY_SSL_KEY',
    'GIT_PROXY_SSL_CAINFO',
    // The identity of the commits stepchain makes (snapshots, forks).
    'GIT_AUTHOR_NAME',
    'GIT_AUTHOR_EMAIL',
    'GIT_AUTHOR_DATE',
    'GIT_COMMITTER_NAME',
    'GIT_COMMITTER_EMAIL',
    'GIT_COMMITTER_DATE',
    // Only ever removes configuration (the system file); it cannot add any.
    'GIT_CONFIG_NOSYSTEM',
    // Diagnostics on stderr.
    'GIT_TRACE',
    'GIT_TRACE2',
    'GIT_TRACE2_EVENT',
    'GIT_TRACE2_PERF',
    'GIT_TRACE_PACKET',
    'GIT_TRACE_PERFORMANCE',
    'GIT_TRACE_SETUP',
    'GIT_CURL_VERBOSE',
]);
/** Kept variables that make git start another program or talk to a server: porcelain needs none of them. */
const TRANSPORT = new Set(['GIT_SSH', 'GIT_SSH_COMMAND', 'GIT_SSH_VARIANT', 'GIT_ASKPASS']);
/** Whether the policy keeps an inherited variable. */
function keepsGitVariable(name) {
    const key = name.toUpperCase();
    return !key.startsWith('GIT_') || KEPT.has(key);
}
/**
 * The environment for a git process: the caller's under the policy above, plus
 * what stepchain sets deliberately: no prompts (it runs unattended) and no
 * replace refs (`refs/replace/*` would make git show other bytes than the
 * commit holds), then `extra`.
 */
function gitEnv(env = process.env, extra = {}) {
    const out = {};
    for (const [k, v] of Object.entries(env))
        if (v !== undefined && keepsGitVariable(k))
            out[k] = v;
    out.GIT_TERMINAL_PROMPT = '0';
    out.GIT_NO_REPLACE_OBJECTS = '1';
    return { ...out, ...extra };
}
/** Runs `git <args>` in `cwd`; returns stdout (untrimmed). Throws GitCommandError on a non-zero exit. */
function gitSync(cwd, args, options = {}) {
    const r = (0,external_node_child_process_namespaceObject.spawnSync)('git', args, {
        cwd,
        env: gitEnv(options.env, options.extra),
        encoding: 'utf8',
        input: options.input ?? '',
        maxBuffer: 1 << 28,
        windowsHide: true,
    });
    if (r.error)
        throw new GitCommandError(args, null, r.error.message);
    if (r.status !== 0)
        throw new GitCommandError(args, r.status, r.stderr);
    return r.stdout;
}
/**
 * Runs `git <args>` asynchronously, under the same policy; resolves to stdout as
 * bytes (for blob contents and large listings). Rejects with GitCommandError.
 */
function exec_gitRun(cwd, args, options = {}) {
    return new Promise((resolve, reject) => {
        const child = (0,external_node_child_process_namespaceObject.spawn)('git', args, {
            cwd,
            env: gitEnv(options.env, options.extra),
            stdio: ['pipe', 'pipe', 'pipe'],
            windowsHide: true,
        });
        const out = [];
        let err = '';
        child.stdout.on('data', (c) => out.push(c));
        child.stderr.on('data', (c) => {
            if (err.length < 65536)
                err += c.toString('utf8');
        });
        child.stdin.on('error', () => {
            /* git exited before reading all input: its exit status says why */
        });
        child.on('error', (e) => reject(new GitCommandError(args, null, e.message)));
        child.on('close', (code) => {
            if (code === 0)
                resolve(Buffer.concat(out));
            else
                reject(new GitCommandError(args, code, err));
        });
        child.stdin.end(options.stdin ?? options.input ?? '');
    });
}
/** Like gitSync but returns undefined instead of throwing (for queries whose failure means "no"). */
function gitTry(cwd, args, options = {}) {
    try {
        return gitSync(cwd, args, options);
    }
    catch (e) {
        if (e instanceof GitCommandError)
            return undefined;
        throw e;
    }
}
/** Variables simple-git refuses to pass on (they can make git run a program); porcelain needs none. */
const SIMPLE_GIT_GUARDED = new Set(['EDITOR', 'VISUAL', 'PAGER', 'PREFIX', 'SSH_ASKPASS']);
/**
 * A simple-git instance for `dir`, under the same policy (`gitEnv`). The
 * porcelain it runs (worktree, branch, status) talks to no server and opens no
 * editor, so the transport variables and the editor/pager ones are left out too
 * (simple-git refuses them unless told otherwise); the git variables the policy
 * keeps are passed on explicitly.
 */
function gitAt(dir, env = process.env) {
    const clean = {};
    for (const [k, v] of Object.entries(gitEnv(env))) {
        const key = k.toUpperCase();
        if (v !== undefined && !TRANSPORT.has(key) && !SIMPLE_GIT_GUARDED.has(key))
            clean[k] = v;
    }
    const allowed = Object.keys(clean).filter((k) => k.toUpperCase().startsWith('GIT_'));
    return wo({ baseDir: dir, allowEnvironment: allowed }).env(clean);
}
/** Runs a simple-git task, turning its failure into GitCommandError (one line). */
async function porcelain(args, task) {
    try {
        return await task();
    }
    catch (e) {
        if (e instanceof Error && !(e instanceof GitCommandError))
            throw new GitCommandError(args, null, e.message);
        throw e;
    }
}

;// CONCATENATED MODULE: ./src/git/repo.ts




/**
 * Reads the repository facts for `dir` with as few processes as possible (this
 * runs on every append). Undefined when `dir` is not inside a git work tree.
 */
function repo_repoInfo(dir, env) {
    if (!(0,external_node_fs_namespaceObject.existsSync)(dir))
        return undefined;
    const q = [
        'rev-parse',
        '--is-inside-work-tree',
        '--show-toplevel',
        '--absolute-git-dir',
        '--git-common-dir',
        '--git-path',
        'index',
    ];
    const out = gitTry(dir, [...q, 'HEAD^{commit}', '--symbolic-full-name', 'HEAD'], { env }) ?? gitTry(dir, q, { env });
    if (out === undefined)
        return undefined;
    const lines = out.split('\n');
    if (lines[0] !== 'true')
        return undefined;
    const top = lines[1];
    const gitDir = lines[2];
    const commonDir = external_node_path_default().resolve(dir, lines[3]);
    const indexFile = external_node_path_default().resolve(dir, lines[4]);
    const head = lines[5] !== undefined && /^[0-9a-f]{40,64}$/.test(lines[5]) ? lines[5] : undefined;
    const symbolic = lines[6];
    let branch;
    if (head !== undefined) {
        branch = symbolic?.startsWith('refs/heads/') ? symbolic.slice('refs/heads/'.length) : undefined;
    }
    else {
        // Unborn branch: HEAD still names it.
        const ref = gitTry(dir, ['symbolic-ref', '-q', 'HEAD'], { env })?.trim();
        branch = ref?.startsWith('refs/heads/') ? ref.slice('refs/heads/'.length) : undefined;
    }
    return { top, gitDir, commonDir, indexFile, head, branch };
}
/** repoInfo, or an InputError (exit 2) naming the directory. */
function requireRepo(dir, env) {
    const info = repo_repoInfo(dir, env);
    if (info === undefined)
        throw new errors_InputError(`${dir}: not inside a git work tree (fork needs a git repository)`);
    return info;
}
/** The commit a ref points to, or undefined. */
function resolveRef(dir, ref, env) {
    return gitTry(dir, ['rev-parse', '-q', '--verify', `${ref}^{commit}`], { env })?.trim() || undefined;
}
/** Whether a branch exists. */
function branchExists(dir, branch, env) {
    return gitTry(dir, ['show-ref', '--verify', '-q', `refs/heads/${branch}`], { env }) !== undefined;
}
/** `git check-ref-format` for one path component, without a process (snapshot refs are made per append). */
function isRefComponent(s) {
    return (s.length > 0 &&
        !s.startsWith('.') &&
        !s.endsWith('.') &&
        !s.endsWith('.lock') &&
        !s.includes('..') &&
        !s.includes('@{') &&
        s !== '@' &&
        !/[\x00-\x20\x7f~^:?*[\\/]/.test(s));
}
/** Refs under a prefix with their commit and full message (one process). */
function listRefs(dir, prefix, env) {
    const out = gitSync(dir, ['for-each-ref', '--format=%(refname)%00%(objectname)%00%(contents)%00%00', prefix], {
        env,
    });
    const refs = [];
    for (const rec of out.split('\0\0')) {
        const r = rec.replace(/^\n/, '');
        if (r.trim() === '')
            continue;
        const [ref, commit, message] = r.split('\0');
        if (ref && commit)
            refs.push({ ref, commit, message: message ?? '' });
    }
    return refs;
}
/** Applies ref updates atomically (`git update-ref --stdin` in a transaction). */
function updateRefs(dir, commands, env) {
    if (commands.length === 0)
        return;
    gitSync(dir, ['update-ref', '--stdin'], { env, input: `start\n${commands.join('\n')}\nprepare\ncommit\n` });
}

;// CONCATENATED MODULE: ./src/git/snapshot.ts







/**
 * Per-step worktree snapshots: after each append, the work tree as it is
 * (tracked files and untracked files that are not ignored, never `.sdd/`) is
 * stored as a commit object under `refs/stepchain/snapshots/<agent>/<key>/<seq>`,
 * where `<key>` names the journal's project within the repository (see
 * `journalKey`), so two journals of the same agent id under different project
 * roots of one repository never overwrite each other's refs. Refs of the
 * earlier layout, `refs/stepchain/snapshots/<agent>/<seq>`, are still read.
 *
 * It is built with a temporary index (GIT_INDEX_FILE in a temp directory), so
 * the user's index, HEAD, branches and files are never touched. The temporary
 * index starts as a copy of the user's index (read-only use of it): its stat
 * cache lets `git add` hash only what changed, which keeps an append on a large
 * repository cheap. With no index yet it starts from HEAD's tree, or empty.
 */
const SNAPSHOT_REF_PREFIX = 'refs/stepchain/snapshots';
/** Never part of a snapshot: stepchain's own state, and the fork worktrees living inside it. */
const SNAPSHOT_PATHSPEC = ['.', ':(exclude,glob)**/.sdd/**'];
/**
 * Which project of the repository a journal belongs to, as a ref component:
 * `j` + 16 hex digits of SHA-256 over the linked worktree's name (empty for
 * the main work tree) and the project root's path relative to its work tree's
 * top. Stable when the repository is moved or cloned; distinct for every
 * project root (a subdirectory, another worktree). Never all digits, so it
 * cannot be taken for a seq of the earlier layout.
 */
function journalKey(root, repo) {
    const real = (p) => {
        try {
            return (0,external_node_fs_namespaceObject.realpathSync)(p);
        }
        catch {
            return external_node_path_default().resolve(p);
        }
    };
    const rel = external_node_path_default().relative(real(repo.top), real(root)).split((external_node_path_default()).sep).join('/');
    const worktree = real(repo.gitDir) === real(repo.commonDir) ? '' : external_node_path_default().basename(repo.gitDir);
    return `j${sha256Hex(Buffer.from(`${worktree}\0${rel}`, 'utf8')).slice(0, 16)}`;
}
/** The ref of one step's snapshot: per journal with `key` (see journalKey), the earlier shared layout without. */
function snapshotRef(agentId, seq, key) {
    return key === undefined
        ? `${SNAPSHOT_REF_PREFIX}/${agentId}/${seq}`
        : `${SNAPSHOT_REF_PREFIX}/${agentId}/${key}/${seq}`;
}
/** The ref of step `seq` of the journal of `agentId` in the project at `root` (undefined outside git). */
function snapshotRefFor(root, agentId, seq, env) {
    const repo = repoInfo(root, env);
    return repo === undefined ? undefined : snapshotRef(agentId, seq, journalKey(root, repo));
}
function message(agentId, seq, stepHash) {
    return `stepchain snapshot: ${agentId} step ${seq}\n\nagent: ${agentId}\nseq: ${seq}\nstep_hash: ${stepHash}\n`;
}
/** The agent, seq and step_hash a snapshot commit's message names (undefined if it is not one). */
function parseSnapshotMessage(msg) {
    const agent = /^agent: (\S+)$/m.exec(msg)?.[1];
    const seq = /^seq: ([0-9]+)$/m.exec(msg)?.[1];
    const hash = /^step_hash: ([0-9a-f]{64})$/m.exec(msg)?.[1];
    if (agent === undefined || seq === undefined || hash === undefined)
        return undefined;
    return { agent_id: agent, seq: Number(seq), step_hash: hash };
}
const IDENTITY_ERROR = /tell me who you are|auto-detect email|empty ident|no email was given|no name was given/i;
/** `git commit-tree`, with a stepchain identity when git has none configured (e.g. a bare CI runner). */
function commitTree(top, tree, parent, msg, env) {
    const args = ['commit-tree', '--no-gpg-sign', tree, ...(parent === undefined ? [] : ['-p', parent])];
    try {
        return gitSync(top, args, { env, input: msg }).trim();
    }
    catch (e) {
        if (!(e instanceof GitCommandError) || !IDENTITY_ERROR.test(e.stderr))
            throw e;
        return gitSync(top, ['-c', 'user.name=stepchain', '-c', 'user.email=stepchain@localhost', ...args], {
            env,
            input: msg,
        }).trim();
    }
}
/**
 * Records the snapshot of step `seq`. Returns undefined when `root` is not in a
 * git work tree (nothing to snapshot); throws GitCommandError when git fails or
 * an Error when the agent id cannot be a ref name.
 */
function takeSnapshot(options, known) {
    const { agentId, seq, stepHash, env } = options;
    assertSafeId(agentId, 'agent id');
    if (!isRefComponent(agentId))
        throw new Error(`agent id ${JSON.stringify(agentId)} cannot be a git ref name component; no snapshot`);
    const repo = known ?? repo_repoInfo(options.root, env);
    if (repo === undefined)
        return undefined;
    const tmp = (0,external_node_fs_namespaceObject.mkdtempSync)(external_node_path_default().join((0,external_node_os_namespaceObject.tmpdir)(), 'stepchain-snap-'));
    try {
        const index = external_node_path_default().join(tmp, 'index');
        let seeded = false;
        try {
            (0,external_node_fs_namespaceObject.copyFileSync)(repo.indexFile, index);
            seeded = true;
        }
        catch {
            /* no index yet (fresh repository) */
        }
        const extra = { GIT_INDEX_FILE: index };
        if (!seeded && repo.head !== undefined)
            gitSync(repo.top, ['read-tree', repo.head], { env, extra });
        gitSync(repo.top, ['add', '-A', '--', ...SNAPSHOT_PATHSPEC], { env, extra });
        const tree = gitSync(repo.top, ['write-tree'], { env, extra }).trim();
        const commit = commitTree(repo.top, tree, repo.head, message(agentId, seq, stepHash), env);
        const ref = snapshotRef(agentId, seq, journalKey(options.root, repo));
        gitSync(repo.top, ['update-ref', '-m', `stepchain snapshot ${agentId} ${seq}`, ref, commit], { env });
        return { ref, commit, agent_id: agentId, seq, step_hash: stepHash };
    }
    finally {
        (0,external_node_fs_namespaceObject.rmSync)(tmp, { recursive: true, force: true });
    }
}
/**
 * Every snapshot of the journal of `agentId` in the project at `root`, by seq:
 * its own refs, and for a seq it has none of, a ref of the earlier shared layout
 * (only refs whose commit message is a stepchain snapshot of that agent and seq;
 * a fork still checks the step_hash before using one).
 */
function listSnapshots(root, agentId, env) {
    assertSafeId(agentId, 'agent id');
    const out = new Map();
    if (!isRefComponent(agentId))
        return out;
    const repo = repo_repoInfo(root, env);
    if (repo === undefined)
        return out;
    const key = journalKey(root, repo);
    const own = `${SNAPSHOT_REF_PREFIX}/${agentId}/${key}/`;
    const legacy = `${SNAPSHOT_REF_PREFIX}/${agentId}/`;
    const found = (prefix, r) => {
        // A fork's inherited refs point at its parent's commits (their message names the parent).
        const m = parseSnapshotMessage(r.message);
        const seqText = r.ref.slice(prefix.length);
        if (m === undefined || !/^[0-9]+$/.test(seqText) || Number(seqText) !== m.seq)
            return undefined;
        return { ref: r.ref, commit: r.commit, agent_id: agentId, seq: m.seq, step_hash: m.step_hash };
    };
    const older = new Map();
    for (const r of listRefs(root, legacy, env)) {
        if (r.ref.startsWith(own)) {
            const s = found(own, r);
            if (s !== undefined)
                out.set(s.seq, s);
        }
        else {
            const s = found(legacy, r); // `<agent>/<seq>` only: another journal's `<agent>/<key>/<seq>` is not a seq
            if (s !== undefined)
                older.set(s.seq, s);
        }
    }
    for (const [seq, s] of older)
        if (!out.has(seq))
            out.set(seq, s);
    return out;
}
/** The snapshot of one step, or undefined. */
function readSnapshot(root, agentId, seq, env) {
    return listSnapshots(root, agentId, env).get(seq);
}

;// CONCATENATED MODULE: ./src/audit/entry.ts


/** The genesis `prev_hmac` (docs/format.md §5). */
const GENESIS_HMAC = '0'.repeat(64);
/** The event types stepchain writes (docs/format.md §5). Other strings are accepted too. */
const AUDIT_EVENT_TYPES = (/* unused pure expression or super */ null && ([
    'replay.step',
    'replay.fork',
    'replay.export',
    'replay.publish',
    'provider.state_mutation',
]));
const ENTRY_KEYS = [
    'timestamp',
    'event_type',
    'actor',
    'resource_type',
    'resource_id',
    'details',
    'prev_hmac',
];
/** Python `json.dumps(v, sort_keys=True)` (read values keep NaN/Infinity as read). */
function prettySortedOfRead(v) {
    return encode(v, { separators: 'pretty', allowNonFinite: true });
}
/** `hmac = HMAC-SHA256(key, prev_hmac + pretty_sorted(entry without hmac))`, hex. */
function computeAuditHmac(key, prevHmac, entryWithoutHmac) {
    return (0,external_node_crypto_namespaceObject.createHmac)('sha256', key)
        .update(Buffer.from(prevHmac + prettySortedOfRead(entryWithoutHmac), 'utf8'))
        .digest('hex');
}
/** The entry without its `hmac` key (the HMAC's pre-image object). */
function withoutHmac(entry) {
    const out = {};
    for (const [k, v] of Object.entries(entry)) {
        if (k === 'hmac')
            continue;
        Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
    }
    return out;
}
/** The reference timestamp form, `YYYY-MM-DDTHH:MM:SS.ffffffZ` (UTC, microseconds). */
function auditTimestamp(unixMicros) {
    const ms = Math.floor(unixMicros / 1000);
    const iso = new Date(ms).toISOString();
    const micros = String(Math.floor(unixMicros) % 1_000_000).padStart(6, '0');
    return `${iso.slice(0, 19)}.${micros}Z`;
}
/** Now, in unix microseconds (sub-millisecond from the monotonic clock). */
function nowMicros() {
    return Math.floor((performance.timeOrigin + performance.now()) * 1000);
}

;// CONCATENATED MODULE: ./src/audit/key.ts






/** Where the key lives: explicit path, else the environment, else the XDG state directory. */
function resolveAuditKeyPath(env, explicit) {
    if (explicit !== undefined && explicit !== '')
        return external_node_path_default().resolve(explicit);
    const fromEnv = env.STEPCHAIN_AUDIT_KEY_PATH || env.BERNSTEIN_AUDIT_KEY_PATH;
    if (fromEnv)
        return external_node_path_default().resolve(expandHome(fromEnv, env));
    const state = env.XDG_STATE_HOME ? expandHome(env.XDG_STATE_HOME, env) : external_node_path_default().join(homeOf(env), '.local', 'state');
    return external_node_path_default().resolve(state, 'stepchain', 'audit.key');
}
function homeOf(env) {
    return env.HOME || (0,external_node_os_namespaceObject.homedir)();
}
function expandHome(p, env) {
    return p === '~' || p.startsWith('~/') ? external_node_path_default().join(homeOf(env), p.slice(1)) : p;
}
/** Python `bytes.strip()`: ASCII whitespace (space, \t \n \v \f \r) off both ends. */
function stripAscii(b) {
    const ws = (c) => c === 0x20 || (c >= 0x09 && c <= 0x0d);
    let s = 0;
    let e = b.length;
    while (s < e && ws(b[s]))
        s++;
    while (e > s && ws(b[e - 1]))
        e--;
    return b.subarray(s, e);
}
function readKey(file) {
    let mode;
    try {
        const st = (0,external_node_fs_namespaceObject.statSync)(file);
        if (!st.isFile())
            throw new errors_InputError(`${file}: audit key is not a regular file`);
        mode = st.mode & 0o777;
    }
    catch (e) {
        if (e instanceof errors_InputError)
            throw e;
        throw new errors_InputError(`${file}: cannot read audit key: ${e.code ?? e.message}`);
    }
    if (process.platform !== 'win32' && (mode & 0o077) !== 0) {
        throw new errors_InputError(`${file}: audit key has insecure permissions ${mode.toString(8).padStart(4, '0')} (group or others can access it); ` +
            `required 0600: chmod 600 ${file}`);
    }
    let bytes;
    try {
        bytes = stripAscii((0,external_node_fs_namespaceObject.readFileSync)(file));
    }
    catch (e) {
        throw new errors_InputError(`${file}: cannot read audit key: ${e.code ?? e.message}`);
    }
    if (bytes.length === 0)
        throw new errors_InputError(`${file}: audit key is empty`);
    return { path: file, bytes };
}
/** Reads a key another process is creating right now: wait (briefly) for its bytes. */
function adoptKey(file) {
    const sleeper = new Int32Array(new SharedArrayBuffer(4));
    for (let i = 0;; i++) {
        try {
            return readKey(file);
        }
        catch (e) {
            if (i >= 100 || !(e instanceof errors_InputError) || !/is empty$/.test(e.message))
                throw e;
            Atomics.wait(sleeper, 0, 0, 10);
        }
    }
}
/**
 * Loads the key at `file`. With `create`, a missing key is generated first
 * (0600, created exclusively so two first writers agree on one key, in a
 * directory made 0700). Refuses (InputError, exit 2) a key that group or
 * others can access, an empty key, or a missing one without `create`.
 */
function loadAuditKey(file, options = {}) {
    let exists = true;
    try {
        (0,external_node_fs_namespaceObject.statSync)(file);
    }
    catch (e) {
        if (e.code !== 'ENOENT')
            return readKey(file);
        exists = false;
    }
    if (exists)
        return readKey(file);
    if (!options.create)
        throw new errors_InputError(`${file}: no audit key (give --key FILE or set STEPCHAIN_AUDIT_KEY_PATH)`);
    const dir = external_node_path_default().dirname(file);
    let made;
    try {
        made = (0,external_node_fs_namespaceObject.mkdirSync)(dir, { recursive: true, mode: 0o700 });
        if (made !== undefined)
            (0,external_node_fs_namespaceObject.chmodSync)(dir, 0o700); // umask may have dropped bits; never wider than 0700
    }
    catch (e) {
        throw new errors_InputError(`${dir}: cannot create the audit key directory: ${e.code ?? e.message}`);
    }
    let fd;
    try {
        fd = (0,external_node_fs_namespaceObject.openSync)(file, 'wx', 0o600);
    }
    catch (e) {
        if (e.code === 'EEXIST')
            return adoptKey(file); // another first writer won: adopt its key
        throw new errors_InputError(`${file}: cannot create audit key: ${e.code ?? e.message}`);
    }
    try {
        const text = Buffer.from((0,external_node_crypto_namespaceObject.randomBytes)(32).toString('hex'), 'ascii');
        (0,external_node_fs_namespaceObject.writeSync)(fd, text);
    }
    finally {
        (0,external_node_fs_namespaceObject.closeSync)(fd);
    }
    (0,external_node_fs_namespaceObject.chmodSync)(file, 0o600);
    fsyncDir(dir);
    return readKey(file);
}

;// CONCATENATED MODULE: ./src/audit/layout.ts



/** `<root>/.sdd/audit/`: one `YYYY-MM-DD.jsonl` per UTC day. */
function auditDir(root) {
    return external_node_path_default().join(root, '.sdd', 'audit');
}
const AUDIT_LOCK = 'audit.lock';
/** The UTC day file name for an instant. */
function dayFileName(unixMicros) {
    return `${new Date(Math.floor(unixMicros / 1000)).toISOString().slice(0, 10)}.jsonl`;
}
/** The log's `*.jsonl` files in chain order (by name, as the reference sorts them); [] when there is no directory. */
function auditFiles(dir) {
    let names;
    try {
        names = (0,external_node_fs_namespaceObject.readdirSync)(dir);
    }
    catch (e) {
        const code = e.code;
        if (code === 'ENOENT')
            return [];
        throw new errors_InputError(`${dir}: cannot read the audit directory: ${code ?? e.message}`);
    }
    return names.filter((n) => n.endsWith('.jsonl')).sort();
}

;// CONCATENATED MODULE: ./src/audit/log.ts









/** `STEPCHAIN_AUDIT=off` (or 0/false/no) turns audit logging off. */
function auditEnabled(env) {
    const v = (env.STEPCHAIN_AUDIT ?? '').trim().toLowerCase();
    return !(v === 'off' || v === '0' || v === 'false' || v === 'no');
}
/**
 * Under the lock: the chain tip. Walks files newest first to the last entry.
 * A torn final line (a writer killed mid-write) is moved aside to
 * `<day>.jsonl.torn-<unix ms>` and cut off, so the next entry starts a clean
 * line; the last entry must be canonical and carry a valid HMAC under this key,
 * else the log is not extended (fail-closed: `audit verify` says why).
 */
function recoverTail(dir, key, durable) {
    const files = auditFiles(dir);
    for (let i = files.length - 1; i >= 0; i--) {
        const file = external_node_path_default().join(dir, files[i]);
        let buf = (0,external_node_fs_namespaceObject.readFileSync)(file);
        if (buf.length > 0 && buf[buf.length - 1] !== 0x0a)
            buf = repairTorn(file, buf, key, durable);
        if (buf.length === 0)
            continue;
        const lines = buf
            .subarray(0, buf.length - 1)
            .toString('latin1')
            .split('\n');
        const lineNo = lines.length;
        const start = buf.lastIndexOf(0x0a, buf.length - 2) + 1;
        const bytes = buf.subarray(start, buf.length - 1);
        const entry = checkTailEntry(bytes, key);
        if (!entry.ok) {
            throw new errors_IntegrityError(`${file}:${lineNo}: ${entry.why}; refusing to extend the audit log (run \`stepchain audit verify\`)`);
        }
        return { hmac: entry.hmac, file };
    }
    return { hmac: GENESIS_HMAC };
}
/** The tail entry's hmac when it verifies, else why not. */
function checkTailEntry(bytes, key) {
    const no = (why) => ({ ok: false, why });
    let value;
    let text;
    try {
        text = decodeUtf8(bytes);
        value = parse(text);
    }
    catch (e) {
        return no(`last entry is not JSON (${e.message})`);
    }
    if (!isJsonObject(value))
        return no('last entry is not a JSON object');
    if (prettySortedOfRead(value) !== text)
        return no('last entry has non-canonical line bytes');
    const stored = value.hmac;
    const prev = value.prev_hmac;
    if (typeof stored !== 'string' || typeof prev !== 'string')
        return no('last entry has no hmac or prev_hmac');
    if (computeAuditHmac(key, prev, withoutHmac(value)) !== stored)
        return no('last entry HMAC does not verify under this key');
    return { ok: true, hmac: stored };
}
/** Moves bytes after the last newline aside and truncates them (or finishes a complete, valid last line). */
function repairTorn(file, buf, key, durable) {
    const cut = buf.lastIndexOf(0x0a) + 1;
    const fragment = buf.subarray(cut);
    if (checkTailEntry(fragment, key).ok) {
        // The writer died between the entry and its newline: finish the line.
        finishLastLine(file, buf.length, durable);
        return Buffer.concat([buf, Buffer.from('\n')]);
    }
    moveTornTailAside(file, cut, durable, 0o600);
    return buf.subarray(0, cut);
}
function checkText(name, v) {
    if (typeof v !== 'string')
        throw new errors_InputError(`audit: ${name} must be a string`);
    return v;
}
/**
 * Appends one event to the HMAC chain in `dir` with `key`: takes the log's lock,
 * re-reads the tip inside it (so concurrent writers, threads or processes, keep
 * one unbroken chain), writes `pretty_sorted(entry)` + `\n` with one write to the
 * UTC day's file, and fsyncs it. Returns the entry written.
 */
function appendAuditEvent(dir, key, eventType, fields, options = {}) {
    checkText('event_type', eventType);
    if (eventType === '')
        throw new errors_InputError('audit: event_type is empty');
    const details = fields.details ?? {};
    if (!isJsonObject(details))
        throw new errors_InputError('audit: details must be a JSON object');
    const durable = options.durable ?? true;
    (0,external_node_fs_namespaceObject.mkdirSync)(dir, { recursive: true });
    const release = acquireLock(external_node_path_default().join(dir, AUDIT_LOCK), options.lockTimeoutMs === undefined ? {} : { timeoutMs: options.lockTimeoutMs });
    try {
        const tail = recoverTail(dir, key, durable);
        const micros = options.nowMicros ?? nowMicros();
        let file = external_node_path_default().join(dir, dayFileName(micros));
        // A clock that went back a day must not put the entry before the chain tip's file.
        if (tail.file !== undefined && external_node_path_default().basename(tail.file) > external_node_path_default().basename(file))
            file = tail.file;
        const entry = {
            timestamp: auditTimestamp(micros),
            event_type: eventType,
            actor: checkText('actor', fields.actor),
            resource_type: checkText('resource_type', fields.resource_type),
            resource_id: checkText('resource_id', fields.resource_id),
            details,
            prev_hmac: tail.hmac,
        };
        let hmac;
        let line;
        try {
            hmac = computeAuditHmac(key, tail.hmac, entry);
            line = encode({ ...entry, hmac }, { separators: 'pretty' });
        }
        catch (e) {
            if (e instanceof CanonicalEncodeError)
                throw new errors_InputError(`audit: details: ${e.message}`);
            throw e;
        }
        appendDurably(file, Buffer.from(`${line}\n`, 'utf8'), durable);
        return { ...entry, hmac };
    }
    finally {
        release();
    }
}
/**
 * Best-effort audit hook for library operations: appends one event to
 * `<root>/.sdd/audit/`, creating the key on first use. Never throws: returns
 * undefined when written (or when `STEPCHAIN_AUDIT=off`), else a one-line
 * warning for the caller to report. The operation it records is never undone.
 */
function auditEvent(root, eventType, fields, options) {
    if (!auditEnabled(options.env))
        return undefined;
    try {
        const key = loadAuditKey(resolveAuditKeyPath(options.env, options.keyPath), { create: true });
        appendAuditEvent(options.dir ?? auditDir(root), key.bytes, eventType, fields, options.nowMicros === undefined ? {} : { nowMicros: options.nowMicros });
        return undefined;
    }
    catch (e) {
        const why = e instanceof errors_StepchainError ? e.message : `${e?.message ?? String(e)}`;
        return `audit event ${eventType} not written: ${why}`;
    }
}
/** Who acts, for events an operator triggers: STEPCHAIN_ACTOR, else the login name, else "stepchain". */
function operatorActor(env) {
    return env.STEPCHAIN_ACTOR || env.USER || env.LOGNAME || 'stepchain';
}

;// CONCATENATED MODULE: ./src/record.ts




function recordStep(journalDirPath, step, options) {
    validateStep(step); // nothing is created for a step that cannot be written
    const journal = Journal.open(journalDirPath, options);
    const row = journal.append(step);
    const warnings = [];
    const result = { row, journal, warnings, notes: [] };
    if (options.snapshot !== false) {
        try {
            const agentId = external_node_path_default().basename(external_node_path_default().resolve(journalDirPath));
            const snap = takeSnapshot({
                root: options.root,
                agentId,
                seq: row.seq,
                stepHash: row.step_hash,
                env: options.env ?? process.env,
            });
            if (snap !== undefined)
                result.snapshot = snap;
            else if (row.seq === 0)
                result.notes.push(`${options.root} is not in a git work tree: steps are recorded without worktree snapshots (a fork restores no files)`);
        }
        catch (e) {
            warnings.push(`step ${row.seq} recorded, but its worktree snapshot failed: ${e.message}`);
        }
    }
    // docs/format.md §5: mirror the step into the HMAC audit chain (best-effort; the row stands either way).
    const agent = external_node_path_default().basename(external_node_path_default().resolve(journalDirPath));
    const audited = auditEvent(options.root, 'replay.step', {
        actor: agent,
        resource_type: 'journal',
        resource_id: agent,
        details: { agent, seq: row.seq, step_hash: row.step_hash },
    }, options.auditKeyPath === undefined
        ? { env: options.env ?? process.env }
        : { env: options.env ?? process.env, keyPath: options.auditKeyPath });
    if (audited !== undefined)
        warnings.push(`step ${row.seq} recorded, but ${audited}`);
    return result;
}

;// CONCATENATED MODULE: ./src/project.ts



/** Whether `dir/name` exists as a real directory (a symlink is not followed). */
function isDir(dir, name) {
    try {
        return (0,external_node_fs_namespaceObject.lstatSync)(external_node_path_default().join(dir, name)).isDirectory();
    }
    catch {
        return false;
    }
}
function exists(dir, name) {
    try {
        (0,external_node_fs_namespaceObject.lstatSync)(external_node_path_default().join(dir, name));
        return true;
    }
    catch {
        return false;
    }
}
/** The project root for a command started in `start` (see ProjectRoot). Never touches the file system beyond lstat. */
function findProjectRoot(start) {
    const from = external_node_path_default().resolve(start);
    let dir = from;
    for (;;) {
        if (isDir(dir, '.sdd'))
            return { root: dir, found: 'sdd' };
        if (exists(dir, '.git'))
            return { root: dir, found: 'git' };
        const parent = external_node_path_default().dirname(dir);
        if (parent === dir)
            return { root: from, found: 'start' };
        dir = parent;
    }
}
/**
 * The project an operation works on: `explicit` (e.g. `--root DIR`, relative to
 * `cwd`) when given, else found from `cwd`. With `create` (the operation may
 * create `<root>/.sdd/`), an explicit directory that has no `.sdd/` of its own,
 * is not the top of a git work tree, and lies inside another project is refused
 * (InputError naming that project): `.sdd/` is never created below an existing
 * project root.
 */
function resolveProjectRoot(options) {
    if (options.explicit === undefined)
        return findProjectRoot(options.cwd);
    const root = external_node_path_default().resolve(options.cwd, options.explicit);
    if (options.create && !isDir(root, '.sdd') && !exists(root, '.git')) {
        const above = findProjectRoot(external_node_path_default().dirname(root));
        if (above.found === 'sdd' && above.root !== root) {
            throw new errors_InputError(`${root} is inside the project ${above.root} (it holds .sdd/): refusing to start a second project below it; ` +
                `use --root ${above.root} (or leave --root out), or create ${external_node_path_default().join(root, '.sdd')} first to make it a project of its own`);
        }
    }
    return { root, found: 'explicit' };
}

;// CONCATENATED MODULE: ./src/cli/common.ts






const ROOT_OPTION = {
    root: {
        kind: 'value',
        value: 'DIR',
        description: 'The project root (the directory holding .sdd/). Default: found like git: the nearest directory upwards holding .sdd/, ' +
            'else the top of the git work tree, else the current directory.',
    },
};
const JSON_OPTION = {
    json: {
        kind: 'flag',
        description: 'Print one JSON document on stdout (snake_case keys, full hashes); an error is {"ok": false, "error": {...}}.',
    },
};
/** `--public-key FILE` (repeatable) for commands that show or check receipts. */
const PUBLIC_KEY_OPTION = {
    kind: 'list',
    value: 'FILE',
    description: "A trusted Ed25519 public key (PEM SPKI or 32 raw bytes): a signed receipt's signature must verify under one of them. " +
        'Without one, a signed receipt is shown with "signature NOT checked" and never verifies.',
};
/** `--force` for commands that write a file: replace an existing one. */
const FORCE_OPTION = {
    force: {
        kind: 'flag',
        description: 'Replace the output file if it exists (without it an existing file is refused).',
    },
};
/**
 * The project root: `--root DIR`, else found from the current directory like
 * git (see `findProjectRoot`). `create`: the command may create `<root>/.sdd/`,
 * so an explicit root inside another project is refused.
 */
function rootOf(args, io, options = {}) {
    const explicit = args.values.get('root');
    return resolveProjectRoot({
        cwd: io.cwd,
        ...(explicit === undefined ? {} : { explicit }),
        ...(options.create ? { create: true } : {}),
    }).root;
}
/** Refuses to replace an existing file unless `--force`, as `report` does (nothing is written: exit 2). */
function refuseOverwrite(file, shown, args, command) {
    if (pathKind(file) === 'dir')
        throw new errors_InputError(`${command}: ${shown} is a directory`);
    if (args.flags.has('force'))
        return;
    if (pathKind(file) !== undefined || isSymlink(file))
        throw new errors_InputError(`${command}: ${shown} exists; refusing to replace it (give --force to replace it)`);
}
function isSymlink(file) {
    try {
        return (0,external_node_fs_namespaceObject.lstatSync)(file).isSymbolicLink();
    }
    catch {
        return false;
    }
}
/** Reads a file named on the command line (`-` is stdin); errors name the file. */
function readInputFile(name, io, what = 'file') {
    if (name === '-')
        return io.readStdin();
    try {
        return (0,external_node_fs_namespaceObject.readFileSync)(external_node_path_default().resolve(io.cwd, name));
    }
    catch (e) {
        const code = e.code;
        const why = code === 'ENOENT'
            ? 'no such file'
            : code === 'EISDIR'
                ? 'is a directory'
                : code === 'EACCES'
                    ? 'permission denied'
                    : (code ?? 'unreadable');
        throw new errors_InputError(`${name}: cannot read ${what}: ${why}`);
    }
}
/** A `--expected-head` style option: absent, or 64 lowercase hex digits. */
function hashOption(args, name) {
    const v = args.values.get(name);
    if (v === undefined)
        return undefined;
    if (!isSha256Hex(v))
        throw new errors_InputError(`--${name}: expected 64 lowercase hex digits, got ${JSON.stringify(v)}`);
    return v;
}
/** A non-negative integer option or positional. */
function intArg(value, what) {
    if (!/^[0-9]+$/.test(value) || !Number.isSafeInteger(Number(value))) {
        throw new errors_InputError(`${what}: expected a non-negative integer, got ${JSON.stringify(value)}`);
    }
    return Number(value);
}

;// CONCATENATED MODULE: ./src/cli/commands/append.ts





function jsonOption(name, text) {
    if (text === undefined)
        return undefined;
    try {
        return parse(text);
    }
    catch (e) {
        if (e instanceof JsonParseError)
            throw new errors_InputError(`--${name}: not JSON: ${e.message}`);
        throw e;
    }
}
const appendCommand = {
    name: ['append'],
    usage: '<agent> [--root DIR] [--input FILE|-] [--input-hash HEX] [--model M] [--prompt TEXT | --prompt-file FILE] ' +
        '[--tool-call JSON] [--tool-result JSON] [--blob FILE]... [--no-snapshot] [--json]',
    summary: "Append one step to an agent's journal (recovering and verifying the chain first) and print the row.",
    description: '<agent> is an agent id (its journal is <root>/.sdd/runtime/journal/<agent>/000000.jsonl, created on the first append) ' +
        'or a journal directory. The chain is recovered and verified first: a journal that does not verify is never extended. ' +
        'In a git work tree the files as they are now are recorded as the snapshot of this step (a fork from this step restores them).',
    options: {
        ...ROOT_OPTION,
        ...JSON_OPTION,
        input: {
            kind: 'value',
            value: 'FILE|-',
            description: 'The input blob (its SHA-256 is the input_hash; stored in the CAS). `-` reads stdin.',
        },
        'input-hash': {
            kind: 'value',
            value: 'HEX',
            description: 'The input_hash as given (64 lowercase hex digits) when the input itself is not at hand.',
        },
        model: { kind: 'value', value: 'M', description: 'The model that ran the step.' },
        prompt: { kind: 'value', value: 'TEXT', description: 'The prompt text.' },
        'prompt-file': {
            kind: 'value',
            value: 'FILE',
            description: 'Read the prompt from a file, byte for byte (UTF-8). `-` reads stdin.',
        },
        'tool-call': { kind: 'value', value: 'JSON', description: 'The tool call, as JSON (numbers kept exactly).' },
        'tool-result': { kind: 'value', value: 'JSON', description: 'The tool result, as JSON.' },
        blob: { kind: 'list', value: 'FILE', description: 'An extra blob to store in the CAS and list in blob_refs.' },
        'no-snapshot': { kind: 'flag', description: 'Do not record a git snapshot of the work tree for this step.' },
    },
    examples: [
        {
            run: 'stepchain append agent-1 --model claude-3-7-sonnet-20250219 --prompt "Fix the bug" --tool-call \'{"name":"edit_file"}\'',
            what: 'record one step of agent-1',
        },
        { run: 'git diff | stepchain append agent-1 --input - --prompt "review"', what: 'the input blob from stdin' },
    ],
    exitCodes: {
        0: 'the step was appended',
        1: 'the journal does not verify (nothing appended), or it is locked',
        2: 'usage or input error (bad id, unreadable file, bad JSON)',
    },
    run(args, io) {
        const [target] = args.positionals;
        if (target === undefined)
            throw new errors_InputError('append: missing <agent>');
        if (args.positionals.length > 1)
            throw new errors_InputError(`append: unexpected argument ${JSON.stringify(args.positionals[1])}`);
        const root = rootOf(args, io, { create: true });
        if (args.values.has('prompt') && args.values.has('prompt-file'))
            throw new errors_InputError('append: give --prompt or --prompt-file, not both');
        if (args.values.has('input') && args.values.has('input-hash'))
            throw new errors_InputError('append: give --input or --input-hash, not both');
        const step = {};
        const tc = jsonOption('tool-call', args.values.get('tool-call'));
        const tr = jsonOption('tool-result', args.values.get('tool-result'));
        if (tc !== undefined)
            step.tool_call = tc;
        if (tr !== undefined)
            step.tool_result = tr;
        const model = args.values.get('model');
        if (model !== undefined)
            step.model = model;
        const promptFile = args.values.get('prompt-file');
        if (promptFile !== undefined) {
            const bytes = readInputFile(promptFile, io, 'prompt file');
            try {
                step.prompt = decodeUtf8(bytes);
            }
            catch {
                throw new errors_InputError(`${promptFile}: prompt file is not valid UTF-8`);
            }
        }
        else if (args.values.has('prompt')) {
            step.prompt = args.values.get('prompt');
        }
        const input = args.values.get('input');
        if (input !== undefined)
            step.input = readInputFile(input, io, 'input');
        const inputHash = args.values.get('input-hash');
        if (inputHash !== undefined)
            step.inputHash = inputHash;
        const blobs = args.lists.get('blob') ?? [];
        if (blobs.length > 0)
            step.blobs = blobs.map((b) => readInputFile(b, io, 'blob'));
        // An agent id (validated before it becomes a path), or a journal directory.
        const { dir } = resolveJournal(target, root, false);
        if (target.endsWith('.jsonl'))
            throw new errors_InputError(`append: give an agent id or a journal directory, not a file (${target})`);
        const { row, journal, warnings, notes, snapshot } = recordStep(dir, step, {
            root,
            env: io.env,
            snapshot: !args.flags.has('no-snapshot'),
            // A journal outside the project layout stores its blobs in the --root project's CAS.
            ...(projectRootOf(dir) === undefined ? { cas: new Cas(casDir(root)) } : {}),
        });
        for (const w of warnings)
            io.err(`stepchain: warning: ${w}`);
        for (const n of notes)
            io.err(`stepchain: note: ${n}`);
        if (args.flags.has('json')) {
            io.out(encodeRow(row));
        }
        else {
            io.out(`appended step ${row.seq} to ${journal.file}`);
            io.out(`  step_hash  ${row.step_hash}`);
            io.out(`  prev_hash  ${row.prev_hash}`);
            io.out(`  input_hash ${row.input_hash}`);
            if (row.blob_refs.length > 0)
                io.out(`  blob_refs  ${row.blob_refs.join(' ')}`);
            if (snapshot !== undefined)
                io.out(`  snapshot   ${snapshot.ref} ${snapshot.commit}`);
        }
        return 0;
    },
};

;// CONCATENATED MODULE: ./src/audit/verify.ts






/** Calls `fn` for each `\n`-framed line (only `\n` frames: a `\v` or `\r` stays inside the line and fails). */
function readAuditLines(dir, file) {
    let buf;
    try {
        buf = (0,external_node_fs_namespaceObject.readFileSync)(external_node_path_default().join(dir, file));
    }
    catch (e) {
        throw new errors_InputError(`${external_node_path_default().join(dir, file)}: cannot read: ${e.code ?? e.message}`);
    }
    const lines = [];
    let start = 0;
    let n = 1;
    while (start < buf.length) {
        const nl = buf.indexOf(0x0a, start);
        const end = nl < 0 ? buf.length : nl;
        const bytes = buf.subarray(start, end);
        lines.push(readLine(file, n, bytes));
        start = end + 1;
        n++;
    }
    return { lines, terminated: buf.length === 0 || buf[buf.length - 1] === 0x0a };
}
function readLine(file, line, bytes) {
    let text;
    let value;
    try {
        text = decodeUtf8(bytes);
        value = parse(text);
    }
    catch (e) {
        const why = e instanceof JsonParseError
            ? e.message
            : e instanceof RangeError
                ? 'line too large or too deeply nested'
                : String(e);
        return {
            file,
            line,
            bytes,
            entry: undefined,
            error: bytes.length === 0 ? 'empty line' : `not JSON: ${why}`,
            canonical: false,
        };
    }
    if (!isJsonObject(value))
        return { file, line, bytes, entry: undefined, error: 'not a JSON object', canonical: false };
    let canonical;
    try {
        canonical = prettySortedOfRead(value) === text;
    }
    catch {
        canonical = false;
    }
    return { file, line, bytes, entry: value, canonical };
}
/**
 * Verifies the whole audit chain in `dir` under `key`: every `*.jsonl` file in
 * name order (so the chain runs across days), every line byte-identical to
 * `pretty_sorted(entry)`, each `prev_hmac` the previous entry's `hmac` (64
 * zeros at genesis), each `hmac` recomputed. Reports every fault with its
 * file and line; the chain follows the stored hmac, so one edit is reported once.
 */
function verifyAuditLog(dir, key) {
    const files = auditFiles(dir);
    const errors = [];
    let prev = GENESIS_HMAC;
    let entries = 0;
    for (const file of files) {
        const { lines, terminated } = readAuditLines(dir, file);
        for (const l of lines) {
            const fault = (kind, message) => void errors.push({ file, line: l.line, kind, message });
            if (l.entry === undefined) {
                fault('malformed_json', l.error ?? 'malformed');
                continue;
            }
            entries++;
            const e = l.entry;
            const missing = [...ENTRY_KEYS, 'hmac'].filter((k) => !Object.prototype.hasOwnProperty.call(e, k));
            if (missing.length > 0)
                fault('missing_field', `entry has no ${missing.map((k) => `"${k}"`).join(', ')}`);
            if (!l.canonical)
                fault('non_canonical', 'non-canonical line bytes (not json.dumps(entry, sort_keys=True))');
            const stored = typeof e.hmac === 'string' ? e.hmac : '';
            const entryPrev = typeof e.prev_hmac === 'string' ? e.prev_hmac : '';
            if (entryPrev !== prev) {
                fault('prev_hmac_mismatch', `chain break: prev_hmac ${entryPrev}, expected ${prev}`);
            }
            const expected = computeAuditHmac(key, prev, withoutHmac(e));
            if (stored !== expected) {
                fault('hmac_mismatch', `HMAC mismatch: stored ${stored}, recomputed ${expected} (entry edited, or another key)`);
            }
            prev = stored;
        }
        if (!terminated) {
            errors.push({
                file,
                line: lines.length,
                kind: 'missing_newline',
                message: 'missing trailing newline (torn or edited last line)',
            });
        }
    }
    // Nothing passes vacuously: a log that is missing, empty, or whose files vanished proves nothing.
    if (entries === 0 && errors.length === 0) {
        errors.push((0,external_node_fs_namespaceObject.existsSync)(dir)
            ? {
                file: '',
                line: 0,
                kind: 'empty_audit_log',
                message: `the audit log has no entries (${files.length} file${files.length === 1 ? '' : 's'}): emptied, or its files vanished`,
            }
            : {
                file: '',
                line: 0,
                kind: 'no_audit_log',
                message: 'no audit directory: nothing was ever logged here, or it was removed',
            });
    }
    return { ok: errors.length === 0, head_hmac: prev, entries, files, errors };
}
/** `file:line: kind: message` for one fault. */
function describeAuditFault(dir, f) {
    if (f.file === '')
        return `${dir}: ${f.kind}: ${f.message}`;
    return `${external_node_path_default().join(dir, f.file)}:${f.line}: ${f.kind}: ${f.message}`;
}

;// CONCATENATED MODULE: ./src/audit/query.ts



const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:?\d{2})?)?$/;
/**
 * An ISO 8601 instant in unix microseconds (a time without a zone is UTC).
 * `endOfDay` makes a bare date mean the last microsecond of that day.
 */
function isoMicros(s, endOfDay = false) {
    const m = ISO.exec(s.trim());
    if (m === null)
        return undefined;
    const [, y, mo, d, h, mi, sec, frac, zone] = m;
    const base = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h ?? 0), Number(mi ?? 0), Number(sec ?? 0));
    if (Number.isNaN(base))
        return undefined;
    const check = new Date(base);
    if (check.getUTCDate() !== Number(d) || check.getUTCMonth() !== Number(mo) - 1)
        return undefined;
    let micros = base * 1000 + Number((frac ?? '').padEnd(6, '0').slice(0, 6) || 0);
    if (zone !== undefined && zone !== 'Z') {
        const sign = zone[0] === '-' ? -1 : 1;
        const digits = zone.slice(1).replace(':', '');
        micros -= sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2))) * 60_000_000;
    }
    if (endOfDay && h === undefined)
        micros += 86_400_000_000 - 1;
    return micros;
}
function bound(name, v, endOfDay) {
    if (v === undefined)
        return undefined;
    const t = isoMicros(v, endOfDay);
    if (t === undefined)
        throw new errors_InputError(`--${name}: expected an ISO 8601 date or time (e.g. 2026-12-02 or 2026-12-02T09:30:00Z), got ${JSON.stringify(v)}`);
    return t;
}
/**
 * The entries of the audit log in `dir` that match every filter given, in
 * chain order. Times compare as instants (not as strings). Lines that are not
 * entries are skipped here; `verifyAuditLog` reports them.
 */
function queryAudit(dir, q = {}) {
    const since = bound('since', q.since, false);
    const until = bound('until', q.until, true);
    const out = [];
    for (const file of auditFiles(dir)) {
        for (const l of readAuditLines(dir, file).lines) {
            const e = l.entry;
            if (e === undefined)
                continue;
            if (q.event_type !== undefined && e.event_type !== q.event_type)
                continue;
            if (q.actor !== undefined && e.actor !== q.actor)
                continue;
            if (since !== undefined || until !== undefined) {
                const t = typeof e.timestamp === 'string' ? isoMicros(e.timestamp) : undefined;
                if (t === undefined)
                    continue;
                if (since !== undefined && t < since)
                    continue;
                if (until !== undefined && t > until)
                    continue;
            }
            out.push({ file, line: l.line, entry: e });
        }
    }
    return out;
}

;// CONCATENATED MODULE: ./src/audit/index.ts







;// CONCATENATED MODULE: ./node_modules/get-east-asian-width/lookup-data.js
// Generated by scripts/build.js

const ambiguousMinimalCodePoint = 161;
const ambiguousMaximumCodePoint = 1114109;
const ambiguousRanges = [161, 161, 164, 164, 167, 168, 170, 170, 173, 174, 176, 180, 182, 186, 188, 191, 198, 198, 208, 208, 215, 216, 222, 225, 230, 230, 232, 234, 236, 237, 240, 240, 242, 243, 247, 250, 252, 252, 254, 254, 257, 257, 273, 273, 275, 275, 283, 283, 294, 295, 299, 299, 305, 307, 312, 312, 319, 322, 324, 324, 328, 331, 333, 333, 338, 339, 358, 359, 363, 363, 462, 462, 464, 464, 466, 466, 468, 468, 470, 470, 472, 472, 474, 474, 476, 476, 593, 593, 609, 609, 708, 708, 711, 711, 713, 715, 717, 717, 720, 720, 728, 731, 733, 733, 735, 735, 768, 879, 913, 929, 931, 937, 945, 961, 963, 969, 1025, 1025, 1040, 1103, 1105, 1105, 8208, 8208, 8211, 8214, 8216, 8217, 8220, 8221, 8224, 8226, 8228, 8231, 8240, 8240, 8242, 8243, 8245, 8245, 8251, 8251, 8254, 8254, 8308, 8308, 8319, 8319, 8321, 8324, 8364, 8364, 8451, 8451, 8453, 8453, 8457, 8457, 8467, 8467, 8470, 8470, 8481, 8482, 8486, 8486, 8491, 8491, 8531, 8532, 8539, 8542, 8544, 8555, 8560, 8569, 8585, 8585, 8592, 8601, 8632, 8633, 8658, 8658, 8660, 8660, 8679, 8679, 8704, 8704, 8706, 8707, 8711, 8712, 8715, 8715, 8719, 8719, 8721, 8721, 8725, 8725, 8730, 8730, 8733, 8736, 8739, 8739, 8741, 8741, 8743, 8748, 8750, 8750, 8756, 8759, 8764, 8765, 8776, 8776, 8780, 8780, 8786, 8786, 8800, 8801, 8804, 8807, 8810, 8811, 8814, 8815, 8834, 8835, 8838, 8839, 8853, 8853, 8857, 8857, 8869, 8869, 8895, 8895, 8978, 8978, 9312, 9449, 9451, 9547, 9552, 9587, 9600, 9615, 9618, 9621, 9632, 9633, 9635, 9641, 9650, 9651, 9654, 9655, 9660, 9661, 9664, 9665, 9670, 9672, 9675, 9675, 9678, 9681, 9698, 9701, 9711, 9711, 9733, 9734, 9737, 9737, 9742, 9743, 9756, 9756, 9758, 9758, 9792, 9792, 9794, 9794, 9824, 9825, 9827, 9829, 9831, 9834, 9836, 9837, 9839, 9839, 9886, 9887, 9919, 9919, 9926, 9933, 9935, 9939, 9941, 9953, 9955, 9955, 9960, 9961, 9963, 9969, 9972, 9972, 9974, 9977, 9979, 9980, 9982, 9983, 10045, 10045, 10102, 10111, 11094, 11097, 12872, 12879, 57344, 63743, 65024, 65039, 65533, 65533, 127232, 127242, 127248, 127277, 127280, 127337, 127344, 127373, 127375, 127376, 127387, 127404, 917760, 917999, 983040, 1048573, 1048576, 1114109];

const fullwidthMinimalCodePoint = 12288;
const fullwidthMaximumCodePoint = 65510;
const fullwidthRanges = [12288, 12288, 65281, 65376, 65504, 65510];

const lookup_data_halfwidthMinimalCodePoint = 8361;
const lookup_data_halfwidthMaximumCodePoint = 65518;
const lookup_data_halfwidthRanges = (/* unused pure expression or super */ null && ([8361, 8361, 65377, 65470, 65474, 65479, 65482, 65487, 65490, 65495, 65498, 65500, 65512, 65518]));

const lookup_data_narrowMinimalCodePoint = 32;
const lookup_data_narrowMaximumCodePoint = 10630;
const lookup_data_narrowRanges = (/* unused pure expression or super */ null && ([32, 126, 162, 163, 165, 166, 172, 172, 175, 175, 10214, 10221, 10629, 10630]));

const wideMinimalCodePoint = 4352;
const wideMaximumCodePoint = 262141;
const wideRanges = [4352, 4447, 8986, 8987, 9001, 9002, 9193, 9196, 9200, 9200, 9203, 9203, 9725, 9726, 9748, 9749, 9776, 9783, 9800, 9811, 9855, 9855, 9866, 9871, 9875, 9875, 9889, 9889, 9898, 9899, 9917, 9918, 9924, 9925, 9934, 9934, 9940, 9940, 9962, 9962, 9970, 9971, 9973, 9973, 9978, 9978, 9981, 9981, 9989, 9989, 9994, 9995, 10024, 10024, 10060, 10060, 10062, 10062, 10067, 10069, 10071, 10071, 10133, 10135, 10160, 10160, 10175, 10175, 11035, 11036, 11088, 11088, 11093, 11093, 11904, 11929, 11931, 12019, 12032, 12245, 12272, 12287, 12289, 12350, 12353, 12438, 12441, 12543, 12549, 12591, 12593, 12686, 12688, 12773, 12783, 12830, 12832, 12871, 12880, 42124, 42128, 42182, 43360, 43388, 44032, 55203, 63744, 64255, 65040, 65049, 65072, 65106, 65108, 65126, 65128, 65131, 94176, 94180, 94192, 94198, 94208, 101594, 101631, 101664, 101760, 101874, 101888, 102801, 102816, 102866, 110576, 110579, 110581, 110587, 110589, 110590, 110592, 110888, 110898, 110898, 110928, 110930, 110933, 110933, 110948, 110952, 110960, 111355, 119552, 119638, 119648, 119670, 126980, 126980, 127183, 127183, 127374, 127374, 127377, 127386, 127406, 127406, 127488, 127490, 127504, 127547, 127552, 127560, 127568, 127569, 127584, 127589, 127744, 127776, 127789, 127797, 127799, 127868, 127870, 127891, 127904, 127946, 127951, 127955, 127968, 127984, 127988, 127988, 127992, 128062, 128064, 128064, 128066, 128252, 128255, 128317, 128331, 128334, 128336, 128359, 128378, 128378, 128405, 128406, 128420, 128420, 128507, 128591, 128640, 128709, 128716, 128716, 128720, 128722, 128725, 128729, 128732, 128735, 128747, 128748, 128756, 128764, 128986, 128986, 128992, 129003, 129008, 129008, 129292, 129338, 129340, 129349, 129351, 129535, 129648, 129660, 129664, 129734, 129736, 129736, 129740, 129757, 129759, 129771, 129775, 129786, 131072, 196605, 196608, 262141];

;// CONCATENATED MODULE: ./node_modules/get-east-asian-width/utilities.js
/**
Binary search on a sorted flat array of [start, end] pairs.

@param {number[]} ranges - Flat array of inclusive [start, end] range pairs, e.g. [0, 5, 10, 20].
@param {number} codePoint - The value to search for.
@returns {boolean} Whether the value falls within any of the ranges.
*/
const utilities_isInRange = (ranges, codePoint) => {
	let low = 0;
	let high = Math.floor(ranges.length / 2) - 1;
	while (low <= high) {
		const mid = Math.floor((low + high) / 2);
		const i = mid * 2;
		if (codePoint < ranges[i]) {
			high = mid - 1;
		} else if (codePoint > ranges[i + 1]) {
			low = mid + 1;
		} else {
			return true;
		}
	}

	return false;
};

;// CONCATENATED MODULE: ./node_modules/get-east-asian-width/lookup.js



const commonCjkCodePoint = 0x4E_00;
const [wideFastPathStart, wideFastPathEnd] = /* #__PURE__ */ findWideFastPathRange(wideRanges);

// Use a hot-path range so common `isWide` calls can skip binary search.
// The range containing U+4E00 covers common CJK ideographs;
// fallback to the largest range for resilience to Unicode table changes.
function findWideFastPathRange(ranges) {
	let fastPathStart = ranges[0];
	let fastPathEnd = ranges[1];

	for (let index = 0; index < ranges.length; index += 2) {
		const start = ranges[index];
		const end = ranges[index + 1];

		if (
			commonCjkCodePoint >= start
			&& commonCjkCodePoint <= end
		) {
			return [start, end];
		}

		if ((end - start) > (fastPathEnd - fastPathStart)) {
			fastPathStart = start;
			fastPathEnd = end;
		}
	}

	return [fastPathStart, fastPathEnd];
}

const isAmbiguous = codePoint => {
	if (
		codePoint < ambiguousMinimalCodePoint
		|| codePoint > ambiguousMaximumCodePoint
	) {
		return false;
	}

	return utilities_isInRange(ambiguousRanges, codePoint);
};

const isFullwidth = codePoint => {
	if (
		codePoint < fullwidthMinimalCodePoint
		|| codePoint > fullwidthMaximumCodePoint
	) {
		return false;
	}

	return utilities_isInRange(fullwidthRanges, codePoint);
};

const isHalfwidth = codePoint => {
	if (
		codePoint < halfwidthMinimalCodePoint
		|| codePoint > halfwidthMaximumCodePoint
	) {
		return false;
	}

	return isInRange(halfwidthRanges, codePoint);
};

const isNarrow = codePoint => {
	if (
		codePoint < narrowMinimalCodePoint
		|| codePoint > narrowMaximumCodePoint
	) {
		return false;
	}

	return isInRange(narrowRanges, codePoint);
};

const isWide = codePoint => {
	if (
		codePoint >= wideFastPathStart
		&& codePoint <= wideFastPathEnd
	) {
		return true;
	}

	if (
		codePoint < wideMinimalCodePoint
		|| codePoint > wideMaximumCodePoint
	) {
		return false;
	}

	return utilities_isInRange(wideRanges, codePoint);
};

function lookup_getCategory(codePoint) {
	if (isAmbiguous(codePoint)) {
		return 'ambiguous';
	}

	if (isFullwidth(codePoint)) {
		return 'fullwidth';
	}

	if (isHalfwidth(codePoint)) {
		return 'halfwidth';
	}

	if (isNarrow(codePoint)) {
		return 'narrow';
	}

	if (isWide(codePoint)) {
		return 'wide';
	}

	return 'neutral';
}

;// CONCATENATED MODULE: ./node_modules/get-east-asian-width/index.js


function validate(codePoint) {
	if (!Number.isSafeInteger(codePoint)) {
		throw new TypeError(`Expected a code point, got \`${typeof codePoint}\`.`);
	}
}

function eastAsianWidthType(codePoint) {
	validate(codePoint);

	return getCategory(codePoint);
}

function eastAsianWidth(codePoint, {ambiguousAsWide = false} = {}) {
	validate(codePoint);

	if (
		isFullwidth(codePoint)
		|| isWide(codePoint)
		|| (ambiguousAsWide && isAmbiguous(codePoint))
	) {
		return 2;
	}

	return 1;
}

// Private exports for https://github.com/sindresorhus/is-fullwidth-code-point


;// CONCATENATED MODULE: ./src/replay/text.ts


/**
 * Text helpers for terminal output. A journal is untrusted input: control
 * characters (ESC above all) are made visible so a row can never drive the
 * operator's terminal, and widths are counted in columns, not UTF-16 units.
 */
/** Replaces C0/C1 controls and DEL by visible escapes (`\x1b`); tabs become two spaces. */
function sanitize(s) {
    return s
        .replace(/[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u2028\u2029]/g, (c) => {
        const code = c.charCodeAt(0);
        if (c === '\n')
            return '\\n';
        return code > 0xff ? `\\u${code.toString(16).padStart(4, '0')}` : `\\x${code.toString(16).padStart(2, '0')}`;
    })
        .replace(/\t/g, '  ');
}
// Zero-width: combining marks, format characters (ZWJ, ZWSP, BOM...), variation selectors
// and Hangul medial/final jamo, as terminals (wcwidth) count them. From Unicode properties
// the JavaScript engine keeps current, not a hand-made table.
const ZERO_WIDTH = /^(?:\p{Mn}|\p{Me}|\p{Cf})$/u;
/**
 * Columns a code point takes in a terminal (0, 1 or 2): wide and fullwidth
 * characters (CJK, and emoji with emoji presentation such as 🚀 ✅) from the
 * Unicode East Asian Width data (get-east-asian-width); ambiguous ones narrow,
 * as Unicode advises when the context is unknown.
 */
function charWidth(cp) {
    if (cp < 0x7f)
        return 1; // the common case, without a lookup
    if ((cp >= 0x1160 && cp <= 0x11ff) || ZERO_WIDTH.test(String.fromCodePoint(cp)))
        return 0;
    return eastAsianWidth(cp);
}
/** Columns a (sanitized) string takes. */
function text_displayWidth(s) {
    let w = 0;
    for (const ch of s)
        w += charWidth(ch.codePointAt(0));
    return w;
}
/** The longest prefix of `s` that fits in `width` columns. */
function sliceColumns(s, width) {
    let w = 0;
    let out = '';
    for (const ch of s) {
        const cw = charWidth(ch.codePointAt(0));
        if (w + cw > width)
            break;
        w += cw;
        out += ch;
    }
    return out;
}
/** Cuts `s` to `width` columns, ending with `…` when something was cut. */
function truncate(s, width) {
    if (width <= 0)
        return '';
    if (text_displayWidth(s) <= width)
        return s;
    return `${sliceColumns(s, width - 1)}…`;
}
/** Pads (or cuts) `s` to exactly `width` columns. */
function fit(s, width) {
    const t = truncate(s, width);
    return t + ' '.repeat(Math.max(0, width - text_displayWidth(t)));
}
/**
 * Splits one line into pieces of at most `width` columns, between words: a
 * piece ends after the last space that fits, and only a word longer than a
 * whole line (a hash, a URL) is cut inside. One pass: fields can be megabytes.
 */
function wrap(s, width) {
    if (width <= 0)
        return [s];
    const out = [];
    let start = 0; // where the current piece starts
    let w = 0; // its width so far
    let word = false; // whether it has a non-space yet (leading indentation is no place to break)
    let breakAt = -1; // just after the last space that follows a word in it
    let widthAtBreak = 0;
    let i = 0;
    while (i < s.length) {
        const cp = s.codePointAt(i);
        const len = cp > 0xffff ? 2 : 1;
        const cw = charWidth(cp);
        if (w + cw > width && i > start) {
            if (cp === 0x20 && word) {
                // The space that overflows ends the piece; the next starts after it.
                out.push(s.slice(start, i));
                start = i + 1;
                w = 0;
                word = false;
                breakAt = -1;
                i += 1;
                continue;
            }
            if (breakAt > start) {
                out.push(s.slice(start, breakAt - 1));
                start = breakAt;
                w -= widthAtBreak;
                word = i > breakAt;
            }
            else {
                out.push(s.slice(start, i));
                start = i;
                w = 0;
                word = false;
            }
            breakAt = -1;
        }
        w += cw;
        i += len;
        if (cp === 0x20) {
            if (word) {
                breakAt = i;
                widthAtBreak = w;
            }
        }
        else {
            word = true;
        }
    }
    out.push(s.slice(start));
    return out;
}
/** A JSON scalar or compact document for display: exact numbers, unicode kept readable. */
function compactJson(v) {
    if (typeof v === 'string')
        return JSON.stringify(v);
    if (v === null || typeof v !== 'object' || v instanceof JsonFloat) {
        return encode(v, { allowNonFinite: true, sortKeys: false });
    }
    if (Array.isArray(v))
        return `[${v.map(compactJson).join(',')}]`;
    const entries = v instanceof Map ? [...v] : Object.entries(v);
    return `{${entries.map(([k, x]) => `${JSON.stringify(k)}:${compactJson(x)}`).join(',')}}`;
}
/**
 * An indented JSON rendering for display (2 spaces), one array entry or key per
 * line; a string with newlines is shown as its lines under a `|`.
 */
function prettyJson(v, indent = '') {
    const inner = `${indent}  `;
    const isObj = isJsonObject(v) || v instanceof Map;
    if (Array.isArray(v)) {
        if (v.length === 0)
            return [`${indent}[]`];
        const lines = [`${indent}[`];
        v.forEach((x, i) => {
            const sub = prettyJson(x, inner);
            if (i < v.length - 1)
                sub[sub.length - 1] += ',';
            for (const l of sub)
                lines.push(l); // no spread: a value can have 100k+ lines
        });
        lines.push(`${indent}]`);
        return lines;
    }
    if (isObj) {
        const entries = v instanceof Map ? [...v] : Object.entries(v);
        if (entries.length === 0)
            return [`${indent}{}`];
        const lines = [`${indent}{`];
        entries.forEach(([k, x], i) => {
            const sub = prettyJson(x, inner);
            sub[0] = `${inner}${JSON.stringify(k)}: ${sub[0].trimStart()}`;
            if (i < entries.length - 1)
                sub[sub.length - 1] += ',';
            for (const l of sub)
                lines.push(l); // no spread: a value can have 100k+ lines
        });
        lines.push(`${indent}}`);
        return lines;
    }
    // A multi-line string reads as its lines (a display, not JSON: marked with `|` as in YAML).
    if (typeof v === 'string' && v.includes('\n'))
        return [`${indent}|`, ...v.split('\n').map((l) => `${inner}${l}`)];
    return [`${indent}${compactJson(v)}`];
}
function hasMultilineString(v) {
    if (typeof v === 'string')
        return v.includes('\n');
    if (Array.isArray(v))
        return v.some(hasMultilineString);
    if (v instanceof Map)
        return [...v.values()].some(hasMultilineString);
    if (isJsonObject(v))
        return Object.values(v).some(hasMultilineString);
    return false;
}
/**
 * The lines to show for a field value: a string as its text (its own lines), a
 * JSON value compact when it fits in `width` columns and indented otherwise.
 * Every line is sanitized.
 */
function valueLines(v, width) {
    if (typeof v === 'string')
        return v.split('\n').map(sanitize);
    const compact = sanitize(compactJson(v));
    if (text_displayWidth(compact) <= width && !hasMultilineString(v))
        return [compact];
    return prettyJson(v).map(sanitize);
}
/** A one-line preview of a value (strings without quotes). */
function preview(v) {
    return sanitize(typeof v === 'string' ? v : compactJson(v));
}
/** `2026-12-02T09:01:02.345Z` for unix seconds (or the number itself when out of range). */
function isoTime(ts) {
    const d = new Date(ts * 1000);
    return Number.isNaN(d.getTime()) ? String(ts) : d.toISOString();
}
/** The first `n` hex digits of a hash. */
function shortHash(h, n = 12) {
    return h.slice(0, n);
}

;// CONCATENATED MODULE: ./src/cli/commands/audit-query.ts






const auditQueryCommand = {
    name: ['audit', 'query'],
    usage: '[--event-type T] [--actor A] [--since ISO] [--until ISO] [--dir DIR] [--root DIR] [--json]',
    summary: 'List audit events by type, actor and time range (inclusive bounds; a bare date covers the whole UTC day).',
    description: 'Lists without verifying: run `stepchain audit verify` to check the chain.',
    options: {
        ...ROOT_OPTION,
        ...JSON_OPTION,
        dir: { kind: 'value', value: 'DIR', description: 'The audit directory (default <root>/.sdd/audit).' },
        'event-type': { kind: 'value', value: 'T', description: 'Only this event type, e.g. replay.fork.' },
        actor: { kind: 'value', value: 'A', description: 'Only events of this actor.' },
        since: {
            kind: 'value',
            value: 'ISO',
            description: 'From this time on (inclusive; a bare date is its whole UTC day).',
        },
        until: {
            kind: 'value',
            value: 'ISO',
            description: 'Up to this time (inclusive; a bare date is its whole UTC day).',
        },
    },
    examples: [{ run: 'stepchain audit query --event-type replay.fork --since 2026-12-01', what: 'forks since a day' }],
    exitCodes: { 0: 'listed (possibly none)', 2: 'usage or input error (a bad time)' },
    run(args, io) {
        expectPositionals(args, [], 'audit query');
        const dirOpt = args.values.get('dir');
        const dir = dirOpt === undefined ? auditDir(rootOf(args, io)) : external_node_path_default().resolve(io.cwd, dirOpt);
        const q = {};
        const set = (k, opt) => {
            const v = args.values.get(opt);
            if (v !== undefined)
                q[k] = v;
        };
        set('event_type', 'event-type');
        set('actor', 'actor');
        set('since', 'since');
        set('until', 'until');
        const matches = queryAudit(dir, q);
        if (args.flags.has('json')) {
            io.json({ dir, count: matches.length, events: matches.map((m) => m.entry) });
        }
        else {
            // Columns padded to the widest value (details, free-form, last).
            const rows = matches.map((m) => {
                const e = m.entry;
                return [
                    String(e.timestamp),
                    String(e.event_type),
                    String(e.actor),
                    `${String(e.resource_type)}/${String(e.resource_id)}`,
                    encode(e.details, { separators: 'compact', allowNonFinite: true }),
                ];
            });
            const widths = [0, 1, 2, 3].map((c) => rows.reduce((w, r) => Math.max(w, text_displayWidth(r[c])), 0));
            const pad = (t, w) => t + ' '.repeat(Math.max(0, w - text_displayWidth(t)));
            if (rows.length > 0)
                io.out(['timestamp', 'event_type', 'actor', 'resource', 'details']
                    .map((h, c) => (c < 4 ? pad(h, Math.max(widths[c], h.length)) : h))
                    .join('  ')
                    .trimEnd());
            for (const r of rows)
                io.out(r
                    .map((t, c) => c < 4 ? pad(t, Math.max(widths[c], ['timestamp', 'event_type', 'actor', 'resource'][c].length)) : t)
                    .join('  '));
            io.out(`${matches.length} event${matches.length === 1 ? '' : 's'}`);
        }
        return 0;
    },
};

;// CONCATENATED MODULE: ./src/cli/commands/audit-verify.ts




const auditVerifyCommand = {
    name: ['audit', 'verify'],
    usage: '[--dir DIR] [--key FILE] [--root DIR] [--json]',
    summary: 'Verify the HMAC-chained audit log across its daily files: every fault with file and line. Exit 0 holds, 1 not.',
    description: 'Every line must be byte-identical to its canonical form, every prev_hmac the previous hmac, every hmac recompute ' +
        'under the key. A missing or empty audit directory is a fault, never "OK, 0 entries".',
    options: {
        ...ROOT_OPTION,
        ...JSON_OPTION,
        dir: { kind: 'value', value: 'DIR', description: 'The audit directory (default <root>/.sdd/audit).' },
        key: {
            kind: 'value',
            value: 'FILE',
            description: 'The HMAC key file (default STEPCHAIN_AUDIT_KEY_PATH, else the XDG state directory).',
        },
    },
    examples: [{ run: 'stepchain audit verify', what: "verify this project's audit chain" }],
    exitCodes: {
        0: 'the chain holds',
        1: 'a fault (each printed with file and line), or no entries at all',
        2: 'usage or input error (an unreadable key)',
    },
    run(args, io) {
        expectPositionals(args, [], 'audit verify');
        const dirOpt = args.values.get('dir');
        const dir = dirOpt === undefined ? auditDir(rootOf(args, io)) : external_node_path_default().resolve(io.cwd, dirOpt);
        const keyOpt = args.values.get('key');
        // No log at all is the fault to report (never "OK, 0 entries"), whether or not a key exists yet.
        const key = auditFiles(dir).length === 0 && keyOpt === undefined
            ? new Uint8Array(0)
            : loadAuditKey(resolveAuditKeyPath(io.env, keyOpt === undefined ? undefined : external_node_path_default().resolve(io.cwd, keyOpt)))
                .bytes;
        const r = verifyAuditLog(dir, key);
        if (args.flags.has('json')) {
            io.json({
                ok: r.ok,
                dir,
                head_hmac: r.head_hmac,
                head_hash: r.head_hmac,
                entries: r.entries,
                steps: r.entries,
                files: r.files,
                errors: r.errors,
            });
        }
        else if (r.ok) {
            io.out(`OK ${dir}: ${r.entries} entr${r.entries === 1 ? 'y' : 'ies'} in ${r.files.length} file${r.files.length === 1 ? '' : 's'}, head ${r.head_hmac}`);
        }
        else {
            io.out(`FAIL ${dir}: ${r.errors.length} fault${r.errors.length === 1 ? '' : 's'} in ${r.entries} entries`);
        }
        if (!r.ok)
            for (const f of r.errors)
                io.err(describeAuditFault(dir, f));
        return r.ok ? 0 : 1;
    },
};

;// CONCATENATED MODULE: ./src/check/append-only.ts

function countLines(buf, end) {
    let n = 0;
    let i = buf.indexOf(0x0a);
    while (i >= 0 && i < end) {
        n++;
        i = buf.indexOf(0x0a, i + 1);
    }
    return n;
}
/** The seq a base line claims (falls back to its 0-based index for a line that does not parse). */
function seqOfLine(buf, lineIndex, start) {
    const nl = buf.indexOf(0x0a, start);
    const bytes = buf.subarray(start, nl < 0 ? buf.length : nl);
    try {
        const v = parse(decodeUtf8(bytes));
        if (isJsonObject(v)) {
            // Per-step rows carry `seq`, run-journal rows `index`.
            const s = v['seq'] ?? v['index'];
            if (isJsonInteger(s) && typeof s === 'number')
                return s;
        }
    }
    catch {
        /* not a row: fall back to the position */
    }
    return lineIndex;
}
function lineStart(buf, offset) {
    return offset === 0 ? 0 : buf.lastIndexOf(0x0a, offset - 1) + 1;
}
/** Compares a base version (bytes) with the head version (bytes, or undefined when the file is gone). */
/** `unit` names rows in messages: `seq` (per-step journals) or `index` (run journals). */
function checkAppendOnly(base, head, unit = 'seq') {
    const baseEnd = base.lastIndexOf(0x0a) + 1; // end of the base's complete rows
    const baseRows = countLines(base, baseEnd);
    if (head === undefined) {
        return {
            ok: false,
            kind: 'deleted',
            baseRows,
            headRows: 0,
            appended: 0,
            firstChangedSeq: baseRows > 0 ? 0 : null,
            line: null,
            message: `journal deleted (the base has ${baseRows} row${baseRows === 1 ? '' : 's'})`,
        };
    }
    const headRows = countLines(head, head.length);
    const common = Math.min(baseEnd, head.length);
    let diff = -1;
    // Fast path: one native compare; only on a difference look for where.
    if (base.compare(head, 0, common, 0, common) !== 0) {
        let lo = 0;
        let hi = common;
        // Binary search on equal prefixes, in native compares.
        while (hi - lo > 1) {
            const mid = (lo + hi) >>> 1;
            if (base.compare(head, lo, mid, lo, mid) === 0)
                lo = mid;
            else
                hi = mid;
        }
        diff = lo;
    }
    else if (head.length < baseEnd) {
        diff = head.length;
    }
    if (diff < 0) {
        const appended = headRows - baseRows;
        return {
            ok: true,
            kind: appended > 0 || head.length > baseEnd ? 'appended' : 'unchanged',
            baseRows,
            headRows,
            appended,
            firstChangedSeq: null,
            line: null,
            message: appended > 0 ? `${appended} row${appended === 1 ? '' : 's'} appended` : 'unchanged',
        };
    }
    const start = lineStart(base, diff);
    const lineIndex = countLines(base, start);
    const seq = seqOfLine(base, lineIndex, start);
    const truncated = diff >= head.length && head.length < baseEnd;
    const headLines = headRows + (head.length > 0 && head[head.length - 1] !== 0x0a ? 1 : 0);
    const line = lineIndex < headLines ? lineIndex + 1 : headLines > 0 ? headLines : null;
    return {
        ok: false,
        kind: truncated ? 'truncated' : 'rewritten',
        baseRows,
        headRows,
        appended: 0,
        firstChangedSeq: seq,
        line,
        message: truncated
            ? `history truncated at ${unit} ${seq}: the base has ${baseRows} rows, the head ${headRows}`
            : `history rewritten from ${unit} ${seq} (line ${lineIndex + 1}): the base's rows are not a prefix of the head`,
    };
}

;// CONCATENATED MODULE: ./src/git/fork.ts












const FORK_ID = /^fork-(?:[a-z0-9-]+-)?[0-9]{8}-[0-9]{6}-[0-9a-f]{6}$/;
/** A label as it appears in a fork id: lowercase letters, digits and single dashes, at most 40 characters. */
function labelSlug(label) {
    return label
        .normalize('NFKD')
        .replace(/[\u0300-\u036f]/g, '')
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, '-')
        .replace(/^-+|-+$/g, '')
        .slice(0, 40)
        .replace(/-+$/, '');
}
/** `fork-[<label slug>-]<YYYYMMDD-HHMMSS>-<6 hex>` (UTC). */
function newForkId(label, now = new Date()) {
    const p = (n, w = 2) => String(n).padStart(w, '0');
    const stamp = `${p(now.getUTCFullYear(), 4)}${p(now.getUTCMonth() + 1)}${p(now.getUTCDate())}-${p(now.getUTCHours())}${p(now.getUTCMinutes())}${p(now.getUTCSeconds())}`;
    const slug = label === undefined ? '' : labelSlug(label);
    return `fork-${slug ? `${slug}-` : ''}${stamp}-${(0,external_node_crypto_namespaceObject.randomBytes)(3).toString('hex')}`;
}
function worktreesDir(root) {
    return external_node_path_default().join(root, '.sdd', 'worktrees');
}
/** `<root>/.sdd/worktrees/<fork_id>`. */
function forkWorktreePath(root, forkId) {
    return external_node_path_default().join(worktreesDir(root), assertSafeId(forkId, 'fork id'));
}
/** `fork/<parent branch or "session">/<fork_id>`. */
function forkBranchName(parentBranch, forkId) {
    return `fork/${parentBranch ?? 'session'}/${forkId}`;
}
function sessionsDir(root) {
    return external_node_path_default().join(runtimeDir(root), 'sessions');
}
/** `<root>/.sdd/runtime/sessions/<session>.json`. */
function sessionFile(root, sessionId) {
    return external_node_path_default().join(sessionsDir(root), `${assertSafeId(sessionId, 'session id')}.json`);
}
/** A session file's JSON object, or undefined when there is none. */
function readSessionFile(file) {
    let bytes;
    try {
        bytes = (0,external_node_fs_namespaceObject.readFileSync)(file);
    }
    catch (e) {
        if (e.code === 'ENOENT')
            return undefined;
        throw new errors_InputError(`${file}: cannot read session file: ${e.code ?? e.message}`);
    }
    let v;
    try {
        v = parseBytes(bytes);
    }
    catch (e) {
        if (e instanceof JsonParseError)
            throw new errors_IntegrityError(`${file}: session file is not JSON: ${e.message}`);
        throw e;
    }
    if (!isJsonObject(v))
        throw new errors_IntegrityError(`${file}: session file is not a JSON object`);
    return v;
}
/** Writes a new file durably (refusing to overwrite one). */
function writeNewFile(file, data) {
    (0,external_node_fs_namespaceObject.mkdirSync)(external_node_path_default().dirname(file), { recursive: true });
    const fd = (0,external_node_fs_namespaceObject.openSync)(file, 'wx', 0o644);
    try {
        writeAll(fd, typeof data === 'string' ? Buffer.from(data, 'utf8') : data);
        (0,external_node_fs_namespaceObject.fsyncSync)(fd);
    }
    finally {
        (0,external_node_fs_namespaceObject.closeSync)(fd);
    }
    fsyncDir(external_node_path_default().dirname(file));
}
const NEWLINE = Buffer.from('\n');
/** The directories `mkdir -p` would create for `dir`, outermost first. */
function missingDirs(dir) {
    const out = [];
    for (let d = external_node_path_default().resolve(dir); !(0,external_node_fs_namespaceObject.existsSync)(d); d = external_node_path_default().dirname(d)) {
        out.unshift(d);
        if (external_node_path_default().dirname(d) === d)
            break;
    }
    return out;
}
/** The snapshot of `seq` for a session, but only if it is the snapshot of *this* step (same step_hash). */
function matchingSnapshot(snaps, seq, stepHash) {
    const s = snaps.get(seq);
    return s !== undefined && s.step_hash === stepHash ? s : undefined;
}
/** Creates a fork. Throws InputError / IntegrityError (one line) and leaves nothing behind on failure. */
async function createFork(options) {
    const env = options.env ?? process.env;
    const root = external_node_path_default().resolve(options.root);
    const sessionId = assertSafeId(options.sessionId, 'session id');
    const forkId = options.forkId === undefined ? newForkId(options.label, options.now) : assertSafeId(options.forkId, 'fork id');
    const fromStep = options.fromStep;
    if (fromStep !== undefined && (!Number.isSafeInteger(fromStep) || fromStep < 0)) {
        throw new errors_InputError(`--from-step: expected a non-negative integer, got ${fromStep}`);
    }
    const label = options.label ?? null;
    if (label !== null && /[\x00-\x1f\x7f]/.test(label))
        throw new errors_InputError('--label: control characters are not allowed');
    // 1. Everything is checked before anything is created.
    if (!(0,external_node_fs_namespaceObject.existsSync)(root))
        throw new errors_InputError(`${root}: no such directory`);
    const repo = requireRepo(root, env);
    const parentJournal = journalFile(root, sessionId);
    const parentSessionFile = sessionFile(root, sessionId);
    const hasJournal = (0,external_node_fs_namespaceObject.existsSync)(parentJournal);
    const parentSession = readSessionFile(parentSessionFile);
    if (!hasJournal && parentSession === undefined) {
        throw new errors_InputError(`no session ${JSON.stringify(sessionId)} under ${root} (looked for ${parentJournal} and ${parentSessionFile})`);
    }
    if (fromStep !== undefined && !hasJournal)
        throw new errors_InputError(`--from-step: session ${JSON.stringify(sessionId)} has no journal (looked for ${parentJournal})`);
    // The parent chain must verify (fail-closed), with or without --from-step.
    const parent = hasJournal ? readVerifiedJournal(parentJournal) : undefined;
    let prefix;
    let parentStepHash = null;
    if (fromStep !== undefined) {
        const steps = parent.steps;
        if (fromStep >= steps) {
            throw new errors_InputError(`${parentJournal}: step ${fromStep} is out of range (the journal has ${steps} step${steps === 1 ? '' : 's'}${steps > 0 ? `, 0..${steps - 1}` : ''})`);
        }
        parentStepHash = parent.entries[fromStep].row.step_hash;
        // The verified rows' own bytes (so what is seeded is what was verified), each "\n"-terminated.
        prefix = Buffer.concat(parent.entries.slice(0, fromStep + 1).flatMap((e) => [e.bytes, NEWLINE]));
    }
    const warnings = [];
    let restored;
    const copies = [];
    if (fromStep !== undefined) {
        const snaps = listSnapshots(root, sessionId, env);
        restored = matchingSnapshot(snaps, fromStep, parentStepHash);
        if (restored === undefined) {
            warnings.push(snaps.has(fromStep)
                ? `the snapshot of step ${fromStep} does not match its step_hash; the fork starts at the parent's current commit`
                : `no worktree snapshot of step ${fromStep}; the fork starts at the parent's current commit`);
        }
        // The fork inherits the snapshots of its prefix, so forks of forks restore them too.
        for (let i = 0; i <= fromStep; i++) {
            const s = matchingSnapshot(snaps, i, parent.entries[i].row.step_hash);
            if (s !== undefined)
                copies.push(s);
        }
    }
    const base = restored?.commit ?? repo.head;
    if (base === undefined)
        throw new errors_IntegrityError(`${repo.top}: the repository has no commit yet to branch a fork from`);
    const worktree = forkWorktreePath(root, forkId);
    const branch = forkBranchName(repo.branch, forkId);
    if ((0,external_node_fs_namespaceObject.existsSync)(worktree))
        throw new errors_IntegrityError(`${worktree}: already exists; refusing to fork over it`);
    const branchBefore = branchExists(root, branch, env);
    const forkJournal = fromStep === undefined ? null : external_node_path_default().join(journalDir(worktree, forkId), JOURNAL_FILE);
    const snapshotPath = sessionFile(worktree, forkId);
    const createdAt = (options.now ?? new Date()).toISOString().replace(/\.\d{3}Z$/, 'Z');
    // 2. Create, remembering how to undo each step.
    const undo = [];
    const git = gitAt(root, env);
    try {
        const dirs = missingDirs(worktreesDir(root));
        (0,external_node_fs_namespaceObject.mkdirSync)(worktreesDir(root), { recursive: true });
        undo.push({
            what: 'directories',
            run: () => {
                for (const d of [...dirs].reverse()) {
                    try {
                        (0,external_node_fs_namespaceObject.rmdirSync)(d); // only if still empty: a concurrent fork may be using it
                    }
                    catch {
                        /* not empty or gone */
                    }
                }
            },
        });
        undo.push({
            what: 'branch',
            run: async () => {
                if (!branchBefore && branchExists(root, branch, env))
                    await git.raw(['branch', '-D', branch]);
            },
        });
        undo.push({
            what: 'worktree',
            run: async () => {
                if (!(0,external_node_fs_namespaceObject.existsSync)(worktree))
                    return; // git cleans up after its own failed add
                try {
                    await git.raw(['worktree', 'remove', '--force', '--force', worktree]);
                }
                catch {
                    (0,external_node_fs_namespaceObject.rmSync)(worktree, { recursive: true, force: true });
                    await git.raw(['worktree', 'prune']);
                }
            },
        });
        const addArgs = ['worktree', 'add', '--quiet', '-b', branch, worktree, base];
        await porcelain(addArgs, () => git.raw(addArgs));
        if (forkJournal !== null)
            writeNewFile(forkJournal, prefix);
        const block = {
            parent_session_id: sessionId,
            label,
            branch,
            branched_from_commit: base,
            ...(fromStep === undefined
                ? {}
                : { from_step: fromStep, parent_step_hash: parentStepHash, restored_from_snapshot: restored?.commit ?? null }),
            parent_branch: repo.branch ?? null,
            parent_commit: repo.head ?? base,
            parent_root: root,
            worktree,
            created_at: createdAt,
        };
        const session = { ...(parentSession ?? {}), session_id: forkId, fork: block };
        writeNewFile(snapshotPath, `${prettySorted(session)}\n`);
        if (copies.length > 0) {
            // Under the fork's own journal key: the fork's appends (from its worktree) find and extend them.
            const key = journalKey(worktree, requireRepo(worktree, env));
            const refs = copies.map((s) => snapshotRef(forkId, s.seq, key));
            // One transaction: all refs are created or none, so the undo is registered after it.
            updateRefs(root, copies.map((s, i) => `create ${refs[i]} ${s.commit}`), env);
            undo.push({
                what: 'snapshot refs',
                run: () => updateRefs(root, refs.map((r) => `delete ${r}`), env),
            });
        }
    }
    catch (e) {
        const failures = [];
        for (const u of [...undo].reverse()) {
            try {
                await u.run();
            }
            catch (ue) {
                failures.push(`${u.what}: ${ue.message.split('\n')[0]}`);
            }
        }
        const why = e instanceof errors_StepchainError
            ? e.message
            : e instanceof GitCommandError
                ? e.message
                : `${e.message.split('\n')[0]}`;
        const rolled = failures.length === 0 ? 'nothing was left behind' : `rollback incomplete (${failures.join('; ')})`;
        throw new errors_IntegrityError(`fork ${sessionId}: ${why}; ${rolled}`);
    }
    // docs/format.md §5: mirror the fork into the audit chain (best-effort; the fork stands either way).
    const audited = auditEvent(root, 'replay.fork', {
        actor: operatorActor(env),
        resource_type: 'session',
        resource_id: forkId,
        details: {
            parent: sessionId,
            child: forkId,
            from_step: fromStep ?? null,
            parent_step_hash: parentStepHash,
            branch,
        },
    }, { env });
    if (audited !== undefined)
        warnings.push(`fork ${forkId} created, but ${audited}`);
    return {
        fork_session_id: forkId,
        fork_branch: branch,
        fork_worktree: worktree,
        fork_commit: base,
        from_step: fromStep ?? null,
        parent_step_hash: parentStepHash,
        snapshot_path: snapshotPath,
        parent_session_id: sessionId,
        restored_from_snapshot: restored?.commit ?? null,
        journal_path: forkJournal,
        warnings,
    };
}
/** The `--json` document of `stepchain fork`: exactly these keys. */
function forkJsonDocument(r) {
    return {
        fork_session_id: r.fork_session_id,
        fork_branch: r.fork_branch,
        fork_worktree: r.fork_worktree,
        fork_commit: r.fork_commit,
        from_step: r.from_step,
        parent_step_hash: r.parent_step_hash,
        snapshot_path: r.snapshot_path,
        parent_session_id: r.parent_session_id,
    };
}

;// CONCATENATED MODULE: ./src/git/tree.ts








function parseWorktreeList(text) {
    const out = [];
    for (const block of text.split(/\n\n+/)) {
        const rec = { path: '', head: null, branch: null, prunable: false };
        for (const line of block.split('\n')) {
            if (line.startsWith('worktree '))
                rec.path = line.slice('worktree '.length);
            else if (line.startsWith('HEAD '))
                rec.head = line.slice('HEAD '.length);
            else if (line.startsWith('branch '))
                rec.branch = line.slice('branch '.length).replace(/^refs\/heads\//, '');
            else if (line === 'prunable' || line.startsWith('prunable '))
                rec.prunable = true;
        }
        if (rec.path)
            out.push(rec);
    }
    return out;
}
const str = (o, k) => (typeof o[k] === 'string' ? o[k] : null);
function tree_int(o, k) {
    const v = o[k];
    if (typeof v === 'number' && Number.isSafeInteger(v))
        return v;
    if (typeof v === 'bigint' && v >= 0n && v <= BigInt(Number.MAX_SAFE_INTEGER))
        return Number(v);
    return null;
}
function nodeOf(rec) {
    const id = external_node_path_default().basename(rec.path);
    const parentDir = external_node_path_default().dirname(rec.path);
    if (!isSafeId(id) || external_node_path_default().basename(parentDir) !== 'worktrees' || external_node_path_default().basename(external_node_path_default().dirname(parentDir)) !== '.sdd')
        return undefined;
    const missing = rec.prunable || !(0,external_node_fs_namespaceObject.existsSync)(rec.path);
    let block;
    if (!missing) {
        try {
            const s = readSessionFile(sessionFile(rec.path, id));
            const f = s?.fork;
            if (f !== undefined && isJsonObject(f))
                block = f;
        }
        catch {
            block = undefined;
        }
        if (block === undefined)
            return undefined; // a worktree in .sdd/worktrees that is not a fork
    }
    else if (!id.startsWith('fork-')) {
        return undefined;
    }
    const b = block ?? {};
    const fromStep = tree_int(b, 'from_step');
    let steps = null;
    let journalOk = null;
    const jf = external_node_path_default().join(journalDir(rec.path, id), JOURNAL_FILE);
    if (!missing && (0,external_node_fs_namespaceObject.existsSync)(jf)) {
        const v = verifyJournalFile(jf);
        steps = v.steps;
        journalOk = v.ok;
    }
    return {
        fork_session_id: id,
        parent_session_id: str(b, 'parent_session_id'),
        label: str(b, 'label'),
        branch: rec.branch ?? str(b, 'branch'),
        worktree: rec.path,
        from_step: fromStep,
        parent_step_hash: str(b, 'parent_step_hash'),
        branched_from_commit: str(b, 'branched_from_commit'),
        restored_from_snapshot: str(b, 'restored_from_snapshot'),
        created_at: str(b, 'created_at'),
        head_commit: rec.head,
        steps,
        steps_since: steps === null ? null : Math.max(0, steps - (fromStep === null ? 0 : fromStep + 1)),
        journal_ok: journalOk,
        missing,
        children: [],
    };
}
/**
 * Every fork of the repository containing `root` (from any of its worktrees),
 * as a forest: the top-level nodes are forks of sessions that are not forks,
 * each fork's forks are its `children`. Sorted by creation time, then id.
 */
async function listForks(root, env = process.env) {
    requireRepo(root, env);
    const args = ['worktree', 'list', '--porcelain'];
    const text = await porcelain(args, () => gitAt(root, env).raw(args));
    const nodes = new Map();
    for (const rec of parseWorktreeList(text)) {
        const n = nodeOf(rec);
        if (n !== undefined && !nodes.has(n.fork_session_id))
            nodes.set(n.fork_session_id, n);
    }
    const roots = [];
    for (const n of nodes.values()) {
        const parent = n.parent_session_id === null ? undefined : nodes.get(n.parent_session_id);
        if (parent !== undefined && parent !== n)
            parent.children.push(n);
        else
            roots.push(n);
    }
    const order = (a, b) => (a.created_at ?? '').localeCompare(b.created_at ?? '') || a.fork_session_id.localeCompare(b.fork_session_id);
    const sortAll = (list) => {
        list.sort(order);
        for (const n of list)
            sortAll(n.children);
    };
    sortAll(roots);
    return roots;
}
/** Every node of a forest, parents before children. */
function flattenForks(nodes) {
    return nodes.flatMap((n) => [n, ...flattenForks(n.children)]);
}
function summary(n) {
    const parts = [n.fork_session_id];
    if (n.label)
        parts.push(JSON.stringify(n.label));
    parts.push(n.from_step === null ? 'session-level fork' : `from step ${n.from_step}`);
    if (n.steps_since !== null)
        parts.push(`+${n.steps_since} step${n.steps_since === 1 ? '' : 's'} since`);
    if (n.restored_from_snapshot)
        parts.push(`files of step ${n.from_step}`);
    if (n.journal_ok === false)
        parts.push('JOURNAL DOES NOT VERIFY');
    if (n.missing)
        parts.push('WORKTREE MISSING');
    return parts.join('  ');
}
/** The forest drawn for a terminal, grouped under the sessions the top-level forks came from. */
function drawForks(nodes) {
    if (nodes.length === 0)
        return ['no forks'];
    const lines = [];
    const draw = (list, prefix) => {
        list.forEach((n, i) => {
            const last = i === list.length - 1;
            lines.push(`${prefix}${last ? '└── ' : '├── '}${summary(n)}`);
            const inner = `${prefix}${last ? '    ' : '│   '}`;
            const bar = n.children.length > 0 ? '│ ' : '  ';
            lines.push(`${inner}${bar}  branch   ${n.branch ?? '(none)'}`);
            lines.push(`${inner}${bar}  worktree ${n.worktree}`);
            draw(n.children, inner);
        });
    };
    const bySession = new Map();
    for (const n of nodes) {
        const k = n.parent_session_id ?? '(unknown session)';
        bySession.set(k, [...(bySession.get(k) ?? []), n]);
    }
    for (const [session, list] of bySession) {
        lines.push(`${session}`);
        draw(list, '');
    }
    return lines;
}
/** The forest as a Mermaid flowchart (sessions and forks as nodes, fork steps on the edges). */
function forksMermaid(nodes) {
    const lines = ['flowchart TD'];
    const ids = new Map();
    const idOf = (name) => {
        let v = ids.get(name);
        if (v === undefined) {
            v = `n${ids.size}`;
            ids.set(name, v);
        }
        return v;
    };
    const esc = (s) => s.replace(/"/g, '#quot;');
    const sessions = new Set(nodes.map((n) => n.parent_session_id ?? '(unknown session)'));
    for (const s of sessions)
        lines.push(`  ${idOf(`session:${s}`)}["${esc(s)}"]`);
    const walk = (n, parentKey) => {
        const me = idOf(`fork:${n.fork_session_id}`);
        const text = [n.fork_session_id, n.branch ?? '', n.steps_since === null ? '' : `+${n.steps_since} steps`]
            .filter(Boolean)
            .join('<br/>');
        lines.push(`  ${me}["${esc(text)}"]`);
        lines.push(`  ${parentKey} -->|${n.from_step === null ? 'session' : `step ${n.from_step}`}| ${me}`);
        for (const c of n.children)
            walk(c, me);
    };
    for (const n of nodes)
        walk(n, idOf(`session:${n.parent_session_id ?? '(unknown session)'}`));
    return `${lines.join('\n')}\n`;
}

;// CONCATENATED MODULE: ./src/git/remove.ts







/**
 * `stepchain fork rm`: removes a fork's worktree, its branch and its snapshot
 * refs (`refs/stepchain/snapshots/<fork_id>/*`). Refuses (IntegrityError) a
 * fork with uncommitted changes unless forced, and a fork that has forks of its
 * own (their worktrees live inside its worktree).
 */
async function removeFork(root, forkId, options = {}) {
    const env = options.env ?? process.env;
    assertSafeId(forkId, 'fork id');
    requireRepo(root, env);
    const node = flattenForks(await listForks(root, env)).find((n) => n.fork_session_id === forkId);
    if (node === undefined)
        throw new errors_InputError(`no fork ${JSON.stringify(forkId)} in this repository (see \`stepchain forks\`)`);
    if (node.children.length > 0) {
        throw new errors_IntegrityError(`fork ${forkId} has forks of its own (${node.children.map((c) => c.fork_session_id).join(', ')}): remove them first`);
    }
    const git = gitAt(root, env);
    if (!node.missing && (0,external_node_fs_namespaceObject.existsSync)(node.worktree)) {
        const args = ['status', '--porcelain', '--untracked-files=all', '--', ...SNAPSHOT_PATHSPEC];
        const dirty = (await porcelain(args, () => gitAt(node.worktree, env).raw(args)))
            .split('\n')
            .filter((l) => l.trim() !== '');
        if (dirty.length > 0 && !options.force) {
            throw new errors_IntegrityError(`fork ${forkId} has uncommitted changes in ${node.worktree} (${dirty.length} path${dirty.length === 1 ? '' : 's'}, e.g. ${dirty[0].slice(3)}): commit them or use --force`);
        }
        const rm = ['worktree', 'remove', '--force', node.worktree];
        await porcelain(rm, () => git.raw(rm));
    }
    else {
        const prune = ['worktree', 'prune'];
        await porcelain(prune, () => git.raw(prune));
    }
    let branchCommit = null;
    if (node.branch !== null && branchExists(root, node.branch, env)) {
        branchCommit = resolveRef(root, `refs/heads/${node.branch}`, env) ?? null;
        const del = ['branch', '-D', node.branch];
        await porcelain(del, () => git.deleteLocalBranch(node.branch, true));
    }
    const refs = listRefs(root, `${SNAPSHOT_REF_PREFIX}/${forkId}/`, env);
    updateRefs(root, refs.map((r) => `delete ${r.ref} ${r.commit}`), env);
    return {
        fork_session_id: forkId,
        worktree: node.worktree,
        branch: node.branch,
        branch_commit: branchCommit,
        removed_snapshot_refs: refs.length,
    };
}

;// CONCATENATED MODULE: ./src/git/index.ts







;// CONCATENATED MODULE: ./src/util/nofollow.ts


function components(rel) {
    const parts = rel.split(/[\\/]+/).filter((p) => p !== '' && p !== '.');
    if (external_node_path_default().isAbsolute(rel) || parts.includes('..'))
        throw new Error(`${JSON.stringify(rel)} is not a path inside the root`);
    return parts;
}
/** What `rel` is under `root`, looking at every component with lstat. */
function nofollow_lstatUnder(root, rel, checked) {
    const parts = components(rel);
    let cur = root;
    for (let i = 0; i < parts.length; i++) {
        cur = external_node_path_default().join(cur, parts[i]);
        const prefix = i < parts.length - 1 ? parts.slice(0, i + 1).join('/') : undefined;
        if (prefix !== undefined && checked?.has(prefix))
            continue;
        let st;
        try {
            st = (0,external_node_fs_namespaceObject.lstatSync)(cur);
        }
        catch {
            return { kind: 'missing' };
        }
        if (st.isSymbolicLink())
            return { kind: 'symlink', at: parts.slice(0, i + 1).join('/') };
        if (prefix !== undefined) {
            if (!st.isDirectory())
                return { kind: 'missing' };
            checked?.add(prefix);
            continue;
        }
        if (st.isFile())
            return { kind: 'file', size: st.size };
        return st.isDirectory() ? { kind: 'dir' } : { kind: 'other' };
    }
    return { kind: 'dir' };
}
// O_NONBLOCK: a FIFO committed in place of a file must not hang the reader (it is refused as not a file).
const FLAGS = external_node_fs_namespaceObject.constants.O_RDONLY | (external_node_fs_namespaceObject.constants.O_NOFOLLOW ?? 0) | (external_node_fs_namespaceObject.constants.O_NONBLOCK ?? 0);
/** The bytes of the regular file `rel` under `root`, never through a link; nothing is read over `maxBytes`. */
function nofollow_readUnder(root, rel, maxBytes = Number.POSITIVE_INFINITY, checked) {
    const st = nofollow_lstatUnder(root, rel, checked);
    if (st.kind === 'symlink' || st.kind === 'missing')
        return st;
    if (st.kind !== 'file')
        return { kind: 'other' };
    let fd;
    try {
        fd = (0,external_node_fs_namespaceObject.openSync)(external_node_path_default().join(root, ...components(rel)), FLAGS);
    }
    catch (e) {
        const code = e.code;
        // ELOOP: the file was swapped for a link after the lstat.
        if (code === 'ELOOP')
            return { kind: 'symlink', at: components(rel).join('/') };
        if (code === 'ENOENT' || code === 'ENOTDIR')
            return { kind: 'missing' };
        throw e;
    }
    try {
        const f = (0,external_node_fs_namespaceObject.fstatSync)(fd);
        if (!f.isFile())
            return { kind: 'other' };
        if (f.size > maxBytes)
            return { kind: 'too_large', size: f.size };
        const buf = Buffer.allocUnsafe(f.size);
        let off = 0;
        while (off < f.size) {
            const n = (0,external_node_fs_namespaceObject.readSync)(fd, buf, off, f.size - off, off);
            if (n === 0)
                break;
            off += n;
        }
        return { kind: 'file', bytes: off === f.size ? buf : buf.subarray(0, off) };
    }
    finally {
        (0,external_node_fs_namespaceObject.closeSync)(fd);
    }
}

;// CONCATENATED MODULE: ./src/check/glob.ts




function escapeRe(c) {
    return /[.+^$()|\\\]{}[*?]/.test(c) ? `\\${c}` : c;
}
/** A regular expression matching the whole relative path. */
function globToRegExp(pattern) {
    let p = pattern.trim().replace(/\\/g, '/');
    while (p.startsWith('./'))
        p = p.slice(2);
    if (p.startsWith('/'))
        throw new errors_InputError(`glob ${JSON.stringify(pattern)}: patterns are relative to the repository`);
    if (p.split('/').includes('..'))
        throw new errors_InputError(`glob ${JSON.stringify(pattern)}: patterns stay inside the repository (no "..")`);
    let re = '';
    let depth = 0;
    for (let i = 0; i < p.length; i++) {
        const c = p[i];
        if (c === '*') {
            if (p[i + 1] === '*') {
                const atStart = i === 0 || p[i - 1] === '/';
                const atEnd = i + 2 === p.length || p[i + 2] === '/';
                if (atStart && atEnd) {
                    // `**/` matches zero or more whole segments; a trailing `**` matches the rest.
                    if (i + 2 === p.length)
                        re += '.*';
                    else
                        re += '(?:[^/]+/)*';
                    i += 2; // skip the second `*` and the `/`
                    continue;
                }
                i++;
            }
            re += '[^/]*';
        }
        else if (c === '?') {
            re += '[^/]';
        }
        else if (c === '[') {
            const close = p.indexOf(']', i + 2);
            if (close < 0) {
                re += '\\[';
                continue;
            }
            let body = p.slice(i + 1, close);
            if (body.startsWith('!'))
                body = `^${body.slice(1)}`;
            re += `[${body.replace(/\\/g, '\\\\')}]`;
            i = close;
        }
        else if (c === '{') {
            re += '(?:';
            depth++;
        }
        else if (c === '}' && depth > 0) {
            re += ')';
            depth--;
        }
        else if (c === ',' && depth > 0) {
            re += '|';
        }
        else {
            re += escapeRe(c);
        }
    }
    if (depth > 0)
        throw new errors_InputError(`glob ${JSON.stringify(pattern)}: unclosed "{"`);
    return new RegExp(`^${re}$`);
}
/** Patterns from an input: one per line or comma-separated at top level; blank lines ignored. */
function parsePatterns(text) {
    const lines = Array.isArray(text) ? text : text.split(/\r?\n/);
    const out = [];
    for (const line of lines) {
        let depth = 0;
        let cur = '';
        for (const c of line) {
            if (c === '{')
                depth++;
            if (c === '}')
                depth = Math.max(0, depth - 1);
            if (c === ',' && depth === 0) {
                if (cur.trim())
                    out.push(cur.trim());
                cur = '';
            }
            else
                cur += c;
        }
        if (cur.trim())
            out.push(cur.trim());
    }
    return out;
}
function glob_globSet(patterns) {
    const list = parsePatterns(patterns);
    const set = { include: [], exclude: [], patterns: list };
    for (const p of list) {
        if (p.startsWith('!'))
            set.exclude.push(globToRegExp(p.slice(1)));
        else
            set.include.push(globToRegExp(p));
    }
    return set;
}
function matchesGlob(set, relPath) {
    return set.include.some((r) => r.test(relPath)) && !set.exclude.some((r) => r.test(relPath));
}
/** Directories never descended into: git internals, dependencies, fork worktrees (their own checkouts). */
const SKIP_DIRS = new Set(['.git', 'node_modules']);
const SKIP_PATHS = new Set(['.sdd/worktrees']);
/** The literal leading directories of a pattern (where a walk can start). */
function staticPrefix(pattern) {
    const segs = pattern.replace(/^(\.\/)+/, '').split('/');
    const out = [];
    for (const s of segs.slice(0, -1)) {
        if (/[*?[{]/.test(s))
            break;
        out.push(s);
    }
    return out.join('/');
}
/** Whether some path below directory `dir` could match `pattern`: `exact` without relying on a `**`. */
function reachBelow(pattern, dir) {
    const p = pattern.replace(/^(\.\/)+/, '');
    // A brace alternative with a `/` in it is not segment-wise: assume it can reach anything.
    if (/\{[^}]*\/[^}]*\}/.test(p))
        return 'globstar';
    const segs = p.split('/');
    const dirs = dir.split('/');
    for (let i = 0; i < dirs.length; i++) {
        if (segs[i] === '**')
            return 'globstar';
        if (i >= segs.length - 1)
            return false; // the pattern's file name is at or above this depth
        if (!globToRegExp(segs[i]).test(dirs[i]))
            return false;
    }
    return segs.length > dirs.length ? 'exact' : false;
}
function linkSeverity(set, rel, isDirLink) {
    if (set.exclude.some((r) => r.test(rel) || r.test(`${rel}/`)))
        return undefined;
    if (set.include.some((r) => r.test(rel)))
        return 'error';
    if (!isDirLink)
        return undefined;
    let reach;
    for (const p of set.patterns) {
        if (p.startsWith('!'))
            continue;
        const r = reachBelow(p, rel);
        if (r === 'exact')
            return 'error';
        if (r === 'globstar')
            reach = 'warning';
    }
    return reach;
}
/**
 * Files under `root` matching the set, as sorted `/`-separated relative paths,
 * and the symbolic links met where a match could be. Walks only from each
 * pattern's literal prefix, skips `.git`, `node_modules` and `.sdd/worktrees`,
 * and never follows a link (lstat throughout): a link is reported, not read.
 */
function glob_scanFiles(root, set, cache) {
    const found = new Set();
    const links = new Map();
    const addLink = (rel, severity) => {
        if (links.get(rel) !== 'error')
            links.set(rel, severity);
    };
    const walk = (rel) => {
        let entries = cache?.get(rel);
        if (entries === undefined) {
            try {
                entries = (0,external_node_fs_namespaceObject.readdirSync)(rel === '' ? root : external_node_path_default().join(root, rel), { withFileTypes: true });
            }
            catch {
                entries = null;
            }
            cache?.set(rel, entries);
        }
        if (entries === null)
            return;
        for (const e of entries) {
            const child = rel === '' ? e.name : `${rel}/${e.name}`;
            if (e.isSymbolicLink()) {
                let isDir = false;
                try {
                    isDir = (0,external_node_fs_namespaceObject.statSync)(external_node_path_default().join(root, child)).isDirectory(); // only to classify the link; never entered
                }
                catch {
                    /* a dangling link */
                }
                const sev = linkSeverity(set, child, isDir);
                if (sev !== undefined)
                    addLink(child, sev);
            }
            else if (e.isDirectory()) {
                if (SKIP_DIRS.has(e.name) || SKIP_PATHS.has(child))
                    continue;
                walk(child);
            }
            else if (e.isFile() && matchesGlob(set, child)) {
                found.add(child);
            }
        }
    };
    // Literal patterns (no wildcard anywhere) are looked up, not searched for.
    const literal = (p) => !/[*?[{]/.test(p);
    const includes = set.patterns.filter((p) => !p.startsWith('!'));
    for (const p of includes.filter(literal)) {
        const rel = p.replace(/^(\.\/)+/, '');
        const st = nofollow_lstatUnder(root, rel);
        if (st.kind === 'symlink')
            addLink(st.at, 'error');
        else if (st.kind === 'file' && matchesGlob(set, rel))
            found.add(rel);
    }
    const globbed = new Set(includes.filter((p) => !literal(p)).map(staticPrefix));
    const roots = [...globbed].filter((s) => ![...globbed].some((o) => o !== s && (o === '' || s.startsWith(`${o}/`))));
    // A prefix inside another prefix is walked by the outer one; a link on a prefix is never entered.
    for (const r of roots) {
        if (r !== '') {
            const st = nofollow_lstatUnder(root, r);
            if (st.kind === 'symlink') {
                addLink(st.at, 'error');
                continue;
            }
            if (st.kind !== 'dir')
                continue;
        }
        walk(r);
    }
    return {
        files: [...found].sort(),
        links: [...links]
            .map(([p, severity]) => ({ path: p, severity }))
            .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)),
    };
}
/** The matching regular files only (links are skipped; `scanFiles` reports them). */
function findFiles(root, set) {
    return glob_scanFiles(root, set).files;
}

;// CONCATENATED MODULE: ./src/check/forks.ts






/**
 * The fork tree as committed: every session snapshot
 * (`.sdd/runtime/sessions/<fork_id>.json`, docs/format.md §4) whose `fork` block names its
 * parent. A PR check sees the files, not the worktrees, so it reads the tree from
 * them. Files that are not session snapshots are skipped, not failed, and so are
 * links (never followed: the tree is shown, not trusted).
 */
const DEFAULT_SESSIONS = '**/.sdd/runtime/sessions/*.json';
function forkTreeFromSessions(root, patterns = DEFAULT_SESSIONS, cache) {
    const nodes = new Map();
    for (const rel of glob_scanFiles(root, glob_globSet(patterns), cache).files) {
        let v;
        try {
            const r = nofollow_readUnder(root, rel, 1024 * 1024);
            if (r.kind !== 'file')
                continue;
            v = parseBytes(r.bytes);
        }
        catch {
            continue;
        }
        if (!isJsonObject(v))
            continue;
        const fork = v['fork'];
        if (!isJsonObject(fork))
            continue;
        const id = external_node_path_default().basename(rel, '.json');
        const parent = fork['parent_session_id'];
        if (!isSafeId(id) || typeof parent !== 'string')
            continue;
        const step = fork['from_step'];
        const label = fork['label'];
        nodes.set(id, {
            id,
            parent,
            fromStep: isJsonInteger(step) && typeof step === 'number' ? step : null,
            label: typeof label === 'string' ? label : null,
        });
    }
    return [...nodes.values()].sort((a, b) => a.id.localeCompare(b.id));
}
/**
 * The fork tree a check can see: committed session snapshots, plus the fork
 * worktrees of this checkout (`listForks`; a CI checkout usually has none).
 * A failure to list worktrees leaves the committed tree as it is.
 */
async function forkTree(root, patterns = DEFAULT_SESSIONS, env = process.env, cache) {
    const nodes = new Map(forkTreeFromSessions(root, patterns, cache).map((n) => [n.id, n]));
    try {
        for (const f of flattenForks(await listForks(root, env))) {
            if (nodes.has(f.fork_session_id))
                continue;
            nodes.set(f.fork_session_id, {
                id: f.fork_session_id,
                parent: f.parent_session_id,
                fromStep: f.from_step,
                label: f.label,
            });
        }
    }
    catch {
        /* not a repository with worktrees we can list: the committed tree stands */
    }
    return [...nodes.values()].sort((a, b) => a.id.localeCompare(b.id));
}

;// CONCATENATED MODULE: ./src/check/git.ts



/**
 * Reading the files of another commit (a PR's base, the commit before a push)
 * without checking it out, every git process through the one runner of
 * src/git/exec.ts (its environment policy: no inherited GIT_DIR and the like).
 * A shallow checkout (the default of actions/checkout) does not have the base:
 * `ensureCommit` fetches exactly that commit, one level deep. A partial clone
 * (`--filter=blob:none`) has the base's trees but not its blobs: the ones the
 * check reads are fetched in one batch, not one round trip per file.
 */
function oneLine(e) {
    if (e instanceof GitCommandError)
        return e.message;
    return e instanceof Error ? e.message.split('\n')[0] : String(e);
}
async function hasCommit(cwd, sha) {
    try {
        await exec_gitRun(cwd, ['cat-file', '-e', `${sha}^{commit}`]);
        return true;
    }
    catch {
        return false;
    }
}
/** Makes sure `sha` is present, fetching it from `remote` when it is not. Returns whether a fetch happened. */
async function ensureCommit(cwd, sha, remote = 'origin') {
    if (!/^[0-9a-f]{7,64}$/i.test(sha))
        throw new errors_InputError(`bad commit id ${JSON.stringify(sha)}`);
    try {
        await exec_gitRun(cwd, ['rev-parse', '--git-dir']);
    }
    catch {
        throw new errors_InputError(`${cwd}: not a git repository (the append-only check needs the checkout's history)`);
    }
    if (await hasCommit(cwd, sha))
        return false;
    try {
        await exec_gitRun(cwd, ['fetch', '--no-tags', '--no-recurse-submodules', '--depth=1', remote, sha]);
    }
    catch (e) {
        throw new errors_InputError(`cannot fetch the commit ${sha} from ${remote}: ${oneLine(e)}`);
    }
    if (!(await hasCommit(cwd, sha)))
        throw new errors_InputError(`the commit ${sha} is still missing after fetching it from ${remote}`);
    return true;
}
/** The blobs (path and object id) of `commit` whose paths match the set (or the test), sorted by path. */
async function listBlobsAtCommit(cwd, commit, set) {
    const wanted = typeof set === 'function' ? set : (p) => matchesGlob(set, p);
    let out;
    try {
        out = await exec_gitRun(cwd, ['ls-tree', '-r', '-z', '--full-tree', commit]);
    }
    catch (e) {
        throw new errors_InputError(`cannot list the files of commit ${commit}: ${oneLine(e)}`);
    }
    const blobs = [];
    for (const rec of out.toString('utf8').split('\0')) {
        // `<mode> <type> <oid>\t<path>`; a link (mode 120000) or submodule is not a file of the base.
        const tab = rec.indexOf('\t');
        if (tab < 0)
            continue;
        const [mode, type, oid] = rec.slice(0, tab).split(' ');
        const p = rec.slice(tab + 1);
        if (type !== 'blob' || mode === '120000' || oid === undefined || !wanted(p))
            continue;
        blobs.push({ path: p, oid });
    }
    return blobs.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
/** Paths (relative, `/`-separated) of the files in `commit` that match the set, sorted. */
async function listFilesAtCommit(cwd, commit, set) {
    return (await listBlobsAtCommit(cwd, commit, set)).map((b) => b.path);
}
/** The promisor remote of a partial clone, or undefined for a complete repository. */
async function promisorRemote(cwd) {
    let out;
    try {
        out = (await exec_gitRun(cwd, ['config', '--get-regexp', '^remote\\..*\\.promisor$'])).toString('utf8');
    }
    catch {
        return undefined; // exit 1: no such key
    }
    for (const line of out.split('\n')) {
        const m = /^remote\.(.+)\.promisor (.*)$/.exec(line);
        if (m && /^(true|yes|on|1)$/i.test(m[2]))
            return m[1];
    }
    return undefined;
}
/**
 * In a partial clone, fetches the blobs among `oids` that are not present, in one
 * `git fetch` (reading them one by one would make git fetch each lazily, one
 * round trip per file). Returns how many were fetched.
 */
async function prefetchBlobs(cwd, commit, oids) {
    if (oids.length === 0)
        return 0;
    const remote = await promisorRemote(cwd);
    if (remote === undefined)
        return 0;
    // `--missing=print` lists what is absent (`?<oid>`) without fetching it.
    let listing;
    try {
        listing = (await exec_gitRun(cwd, ['rev-list', '--objects', '--missing=print', '--no-walk', commit])).toString('utf8');
    }
    catch (e) {
        throw new errors_InputError(`cannot list the objects of commit ${commit}: ${oneLine(e)}`);
    }
    const absent = new Set();
    for (const line of listing.split('\n'))
        if (line.startsWith('?'))
            absent.add(line.slice(1).trim());
    const wanted = [...new Set(oids)].filter((o) => absent.has(o));
    if (wanted.length === 0)
        return 0;
    try {
        await exec_gitRun(cwd, [
            '-c',
            'fetch.negotiationAlgorithm=noop',
            'fetch',
            '--no-tags',
            '--no-write-fetch-head',
            '--recurse-submodules=no',
            '--filter=blob:none',
            '--stdin',
            remote,
        ], { input: `${wanted.join('\n')}\n` });
    }
    catch (e) {
        throw new errors_InputError(`cannot fetch ${wanted.length} blobs of commit ${commit} from ${remote}: ${oneLine(e)}`);
    }
    return wanted.length;
}
/** Parses `git cat-file --batch` output for the requested names, in order. */
function parseBatch(out, names) {
    const result = [];
    let pos = 0;
    for (let i = 0; i < names.length; i++) {
        const nl = out.indexOf(0x0a, pos);
        if (nl < 0)
            throw new errors_InputError('git cat-file: truncated output');
        const header = out.subarray(pos, nl).toString('utf8');
        pos = nl + 1;
        const m = /^[0-9a-f]+ (\w+) (\d+)$/.exec(header);
        if (m === null) {
            result.push(undefined); // "<object> missing" (or ambiguous)
            continue;
        }
        const size = Number(m[2]);
        // A view into the batch output (no copy): the blobs of one batch live as long as the caller keeps any.
        result.push(m[1] === 'blob' ? out.subarray(pos, pos + size) : undefined);
        pos += size + 1; // content, then a newline
    }
    return result;
}
async function catFileBatch(cwd, names) {
    if (names.length === 0)
        return [];
    let out;
    try {
        out = await exec_gitRun(cwd, ['cat-file', '--batch'], { input: names.map((n) => `${n}\n`).join('') });
    }
    catch (e) {
        throw new errors_InputError(`git cat-file failed: ${oneLine(e)}`);
    }
    return parseBatch(out, names);
}
/** The contents of blobs by object id, read through one `git cat-file --batch` process. */
async function readBlobs(cwd, oids) {
    const unique = [...new Set(oids)];
    const got = await catFileBatch(cwd, unique);
    return new Map(unique.map((o, i) => [o, got[i]]));
}
/**
 * The contents of `paths` at `commit`, read through one `git cat-file --batch`
 * process (one process for any number of files keeps a large PR fast); in a
 * partial clone the missing blobs are fetched first, in one batch. A path
 * missing at that commit maps to undefined.
 */
async function readFilesAtCommit(cwd, commit, paths) {
    const result = new Map();
    if (paths.length === 0)
        return result;
    const wanted = new Set(paths);
    const blobs = await listBlobsAtCommit(cwd, commit, (p) => wanted.has(p));
    await prefetchBlobs(cwd, commit, blobs.map((b) => b.oid));
    const byPath = new Map(blobs.map((b) => [b.path, b.oid]));
    const contents = await readBlobs(cwd, blobs.map((b) => b.oid));
    for (const p of paths) {
        const oid = byPath.get(p);
        result.set(p, oid === undefined ? undefined : contents.get(oid));
    }
    return result;
}
/** The commit id a ref names (a branch, tag, `HEAD~1`, an id); an input error when it names none. */
async function resolveCommit(cwd, ref) {
    if (ref.startsWith('-'))
        throw new errors_InputError(`bad ref ${JSON.stringify(ref)}`);
    let out = '';
    try {
        out = (await exec_gitRun(cwd, ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`])).toString('utf8').trim();
    }
    catch {
        /* below */
    }
    // `--quiet` makes a missing ref an empty answer, not an error: never pass "" on as a commit.
    if (!/^[0-9a-f]{40,64}$/.test(out))
        throw new errors_InputError(`--base ${ref}: no such commit in ${cwd} (a branch, tag or commit id; fetch it first?)`);
    return out;
}
/** The checkout's HEAD commit, or undefined outside a repository. */
async function headCommit(cwd) {
    try {
        return (await gitRun(cwd, ['rev-parse', '--verify', '--quiet', 'HEAD^{commit}'])).toString('utf8').trim();
    }
    catch {
        return undefined;
    }
}
/** The parents of a commit (empty when unknown). */
async function parentsOf(cwd, commit) {
    try {
        const out = (await gitRun(cwd, ['rev-list', '--parents', '-n', '1', commit])).toString('utf8').trim();
        return out.split(' ').slice(1);
    }
    catch {
        return [];
    }
}

;// CONCATENATED MODULE: ./src/check/markdown.ts
/**
 * The check's report as GitHub-flavoured Markdown: the job summary and the PR
 * comment. A fork tree is drawn as a Mermaid flowchart (GitHub renders it).
 *
 * Every value that comes from a repository (paths, ids, labels, fault messages)
 * is escaped for where it goes: in text, table cells and code spans every
 * character Markdown, GFM (autolinks, @mentions, #references, tables, emphasis,
 * math) or HTML could act on becomes a character reference; in a Mermaid label,
 * a Mermaid entity code. Control characters are shown as `\uXXXX`. GitHub's
 * limits are kept by cutting whole rows, never a row in the middle, and the
 * faults are kept before the table.
 */
const COMMENT_MARKER = '<!-- stepchain-check -->';
/** GitHub's cap on a step's job summary (1 MiB), with room to spare. */
const SUMMARY_MAX_BYTES = 1_000_000;
/** GitHub's cap on a comment body is 65,536 characters. */
const COMMENT_MAX_CHARS = 65_536;
// Shown as `\uXXXX`: C0/C1 controls, DEL, line/paragraph separators, bidi controls, zero-width characters, BOM.
const INVISIBLE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069\u200b-\u200f\ufeff]/g;
function visible(s) {
    return s.replace(INVISIBLE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
/** At most `max` code points, with an ellipsis. */
function clip(s, max) {
    const cps = Array.from(s);
    return cps.length <= max ? s : `${cps.slice(0, max - 1).join('')}…`;
}
/**
 * Repository data as inert Markdown text (usable in a table cell, a list item or
 * inside `<code>`): letters, digits, space and `-./,` stay; every other ASCII
 * character becomes `&#N;`, and so does the `.` of a `www.` (GFM autolinks it).
 */
function mdText(s, max = 300) {
    const t = visible(clip(s, max));
    let out = '';
    for (let i = 0; i < t.length; i++) {
        const c = t[i];
        const code = c.charCodeAt(0);
        const plain = /[A-Za-z0-9 \-/,]/.test(c) || (c === '.' && !/www$/i.test(t.slice(Math.max(0, i - 3), i)));
        out += plain || code > 0x7f ? c : `&#${code};`;
    }
    return out;
}
/** A code span for repository data (an HTML `<code>`: a backtick in the data cannot close it). */
function mdCode(s, max = 300) {
    return `<code>${mdText(s, max)}</code>`;
}
/** A Mermaid label: letters, digits and a few safe characters stay, everything else is a `#N;` entity code. */
function mermaidText(s, max = 60) {
    let out = '';
    for (const c of clip(s, max)) {
        const cp = c.codePointAt(0);
        if (/[A-Za-z0-9 ,.\-/_]/.test(c))
            out += c;
        else if (visible(c) !== c)
            out += '#65533;';
        else
            out += `#${cp};`;
    }
    return out;
}
/** A Mermaid node id: letters and digits only, stable per session id. */
function mermaidId(id, ids) {
    let m = ids.get(id);
    if (m === undefined) {
        m = `n${ids.size}`;
        ids.set(id, m);
    }
    return m;
}
/** A Mermaid `flowchart` of the fork tree (empty string when there are no forks); at most `maxForks` forks. */
function forkTreeMermaid(forks, maxForks = 200) {
    if (forks.length === 0)
        return '';
    const ids = new Map();
    const lines = ['```mermaid', 'flowchart LR'];
    const declared = new Set();
    const declare = (id, label) => {
        if (declared.has(id))
            return;
        declared.add(id);
        const text = label ? `${mermaidText(id)}<br/>${mermaidText(label)}` : mermaidText(id);
        lines.push(`  ${mermaidId(id, ids)}["${text}"]`);
    };
    const sorted = [...forks]
        .sort((a, b) => (a.parent ?? '').localeCompare(b.parent ?? '') || a.id.localeCompare(b.id))
        .slice(0, maxForks);
    // Forks first (with their labels), then roots that are only ever parents.
    for (const f of sorted)
        declare(f.id, f.label);
    for (const f of sorted)
        if (f.parent !== null)
            declare(f.parent, null);
    for (const f of sorted) {
        if (f.parent === null)
            continue;
        const edge = f.fromStep === null ? 'session' : `step ${f.fromStep}`;
        lines.push(`  ${mermaidId(f.parent, ids)} -->|"${mermaidText(edge)}"| ${mermaidId(f.id, ids)}`);
    }
    lines.push('```');
    if (forks.length > maxForks)
        lines.push('', `… and ${forks.length - maxForks} more forks (see the JSON report).`);
    return lines.join('\n');
}
function plural(n, word) {
    return `${n} ${word}${n === 1 ? '' : 's'}`;
}
function renderCheckMarkdown(report, options = {}) {
    const maxFaults = options.maxFaults ?? 500;
    const maxRows = options.maxRows ?? 5000;
    const size = options.maxChars !== undefined ? (s) => s.length : (s) => Buffer.byteLength(s, 'utf8');
    const limit = options.maxChars ?? options.maxBytes ?? SUMMARY_MAX_BYTES;
    const errors = report.faults.filter((f) => f.severity === 'error');
    const warnings = report.faults.filter((f) => f.severity === 'warning');
    const verdict = !report.ok ? '❌ failed' : report.items.length === 0 ? '⚠️ nothing checked' : '✅ verified';
    const shard = report.shard === null ? '' : ` (shard ${report.shard.index + 1} of ${report.shard.count})`;
    const head = [];
    head.push(`## ${mdText(options.title ?? 'stepchain', 100)}${shard}: ${verdict}`, '');
    const base = report.base === null
        ? 'append-only not checked'
        : `append-only checked against base ${mdCode(report.base.slice(0, 12))}`;
    head.push(`${report.verified} verified, ${report.failed} failed, ${plural(errors.length, 'fault')}` +
        `${warnings.length > 0 ? `, ${plural(warnings.length, 'warning')}` : ''}; ${base}.`, '');
    for (const n of options.notes ?? [])
        head.push(`> ${mdText(n, 1000)}`, '');
    if (report.trustedKeys.length > 0) {
        head.push('Trusted keys:', '');
        for (const k of report.trustedKeys.slice(0, 50))
            head.push(`- ${mdCode(k.keyId, 80)} from ${mdText(k.source)}`);
        if (report.trustedKeys.length > 50)
            head.push(`- … and ${report.trustedKeys.length - 50} more`);
        head.push('');
    }
    const faultLines = report.faults.slice(0, maxFaults).map((f) => {
        const where = f.line === null ? f.path : `${f.path}:${f.line}`;
        return `- ${f.severity === 'error' ? '❌' : '⚠️'} ${mdCode(where)}: ${mdText(f.message, 500)}`;
    });
    const rowLines = report.items.slice(0, maxRows).map((i) => {
        const head12 = i.head === '' ? '' : mdCode(i.head.slice(0, 12));
        const hist = i.appendOnly === undefined || i.appendOnly === 'renamed' ? '' : ` · ${i.appendOnly}`;
        return `| ${i.ok ? '✅' : '❌'} | ${i.kind} | ${mdCode(i.path)} | ${mdText(i.id, 100)} | ${i.steps} | ${head12} | ${mdText(i.status, 200)}${hist} |`;
    });
    const tree = forkTreeMermaid(options.forks ?? [], options.maxForks ?? 200);
    // Assemble within the limit: the head, then the faults, then whole table rows, then the tree if it fits.
    const out = [...head];
    let used = size(out.join('\n')) + 200; // room for the "and N more" lines
    const fits = (lines) => used + size(lines.join('\n')) + lines.length <= limit;
    const take = (line) => {
        if (!fits([line]))
            return false;
        out.push(line);
        used += size(line) + 1;
        return true;
    };
    if (report.faults.length > 0) {
        take('### Faults');
        take('');
        let shown = 0;
        for (const l of faultLines) {
            if (!take(l))
                break;
            shown++;
        }
        if (report.faults.length > shown)
            out.push(`- … and ${report.faults.length - shown} more (see the JSON report).`);
        out.push('');
    }
    if (report.items.length > 0) {
        const header = ['| | Kind | File | Id | Steps | Head | Status |', '|---|---|---|---|---:|---|---|'];
        if (fits(header)) {
            take(header[0]);
            take(header[1]);
            let shown = 0;
            for (const l of rowLines) {
                if (!take(l))
                    break;
                shown++;
            }
            if (report.items.length > shown)
                out.push('', `… and ${report.items.length - shown} more files (see the JSON report).`);
            out.push('');
        }
        else {
            out.push(`${report.items.length} files checked (see the JSON report).`, '');
        }
    }
    else {
        out.push('No journals, runs or receipts were found.', '');
    }
    if (tree !== '') {
        const lines = ['### Fork tree', '', tree, ''];
        if (fits(lines))
            out.push(...lines);
        else
            out.push('(The fork tree is left out to keep within GitHub’s size limit; see the JSON report.)', '');
    }
    return out.join('\n');
}

;// CONCATENATED MODULE: external "node:zlib"
const external_node_zlib_namespaceObject = require("node:zlib");
;// CONCATENATED MODULE: ./src/version.ts
/** The producer name written into receipts (`bernstein_version`) and shown by `--version`. */
const VERSION = '0.1.0';
const PRODUCER = `stepchain/${VERSION}`;

;// CONCATENATED MODULE: ./src/receipt/keys.ts






// DER prefixes that wrap a raw 32-byte Ed25519 seed / public key (RFC 8410).
const PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
const SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');
function keyIdOf(rawPublicKey) {
    return sha256Hex(rawPublicKey).slice(0, 16);
}
function rawOfPublic(key) {
    const der = key.export({ format: 'der', type: 'spki' });
    return Buffer.from(der.subarray(der.length - 32));
}
function publicFromKeyObject(key, source) {
    const raw = rawOfPublic(key);
    return { key, raw, keyId: keyIdOf(raw), source };
}
function pemLabel(text) {
    const m = /^-----BEGIN ([A-Z0-9 ]+)-----/m.exec(text);
    return m?.[1];
}
function looksLikeText(bytes) {
    return bytes.length > 0 && /^[\x09\x0a\x0d\x20-\x7e]*$/.test(bytes.toString('latin1'));
}
/** A private key from a file's bytes: PEM PKCS#8 Ed25519 or a raw 32-byte seed. */
function parsePrivateKey(bytes, source) {
    let key;
    const text = looksLikeText(bytes) ? bytes.toString('latin1') : undefined;
    const label = text === undefined ? undefined : pemLabel(text);
    if (label !== undefined) {
        if (label === 'ENCRYPTED PRIVATE KEY')
            throw new errors_InputError(`${source}: encrypted private keys are not supported (use an unencrypted PKCS#8 PEM)`);
        if (label === 'PUBLIC KEY')
            throw new errors_InputError(`${source}: this is a public key; a private key (PEM PKCS#8 or a raw 32-byte seed) is needed`);
        if (label !== 'PRIVATE KEY')
            throw new errors_InputError(`${source}: not a PKCS#8 private key (PEM "${label}"); expected "PRIVATE KEY" or a raw 32-byte seed`);
        try {
            key = (0,external_node_crypto_namespaceObject.createPrivateKey)({ key: text, format: 'pem' });
        }
        catch {
            throw new errors_InputError(`${source}: malformed PEM private key`);
        }
    }
    else if (bytes.length === 32) {
        key = (0,external_node_crypto_namespaceObject.createPrivateKey)({ key: Buffer.concat([PKCS8_PREFIX, bytes]), format: 'der', type: 'pkcs8' });
    }
    else {
        throw new errors_InputError(`${source}: not an Ed25519 private key: expected PEM PKCS#8 or a raw 32-byte seed, got ${bytes.length} bytes`);
    }
    if (key.asymmetricKeyType !== 'ed25519') {
        throw new errors_InputError(`${source}: a ${key.asymmetricKeyType ?? 'non-Ed25519'} key; receipts are signed with Ed25519`);
    }
    const publicKey = publicFromKeyObject((0,external_node_crypto_namespaceObject.createPublicKey)(key), source);
    return { key, publicKey, keyId: publicKey.keyId, source };
}
/** A public key from a file's bytes: PEM SPKI Ed25519 or 32 raw bytes. */
function parsePublicKey(bytes, source) {
    let key;
    const text = looksLikeText(bytes) ? bytes.toString('latin1') : undefined;
    const label = text === undefined ? undefined : pemLabel(text);
    if (label !== undefined) {
        if (label.includes('PRIVATE KEY'))
            throw new errors_InputError(`${source}: this is a private key; give the public key (PEM SPKI or 32 raw bytes)`);
        if (label !== 'PUBLIC KEY')
            throw new errors_InputError(`${source}: not an SPKI public key (PEM "${label}"); expected "PUBLIC KEY" or 32 raw bytes`);
        try {
            key = (0,external_node_crypto_namespaceObject.createPublicKey)({ key: text, format: 'pem' });
        }
        catch {
            throw new errors_InputError(`${source}: malformed PEM public key`);
        }
    }
    else if (bytes.length === 32) {
        try {
            key = (0,external_node_crypto_namespaceObject.createPublicKey)({ key: Buffer.concat([SPKI_PREFIX, bytes]), format: 'der', type: 'spki' });
        }
        catch {
            throw new errors_InputError(`${source}: 32 bytes that are not an Ed25519 public key`);
        }
    }
    else {
        throw new errors_InputError(`${source}: not an Ed25519 public key: expected PEM SPKI or 32 raw bytes, got ${bytes.length} bytes`);
    }
    if (key.asymmetricKeyType !== 'ed25519') {
        throw new errors_InputError(`${source}: a ${key.asymmetricKeyType ?? 'non-Ed25519'} key; receipts are signed with Ed25519`);
    }
    return publicFromKeyObject(key, source);
}
function readKeyBytes(file, what) {
    let st;
    try {
        st = (0,external_node_fs_namespaceObject.statSync)(file);
    }
    catch {
        throw new errors_InputError(`${file}: cannot read ${what}: no such file`);
    }
    if (!st.isFile())
        throw new errors_InputError(`${file}: cannot read ${what}: not a regular file`);
    if (st.size > 64 * 1024)
        throw new errors_InputError(`${file}: not a key file (${st.size} bytes)`);
    try {
        return (0,external_node_fs_namespaceObject.readFileSync)(file);
    }
    catch (e) {
        throw new errors_InputError(`${file}: cannot read ${what}: ${e.code ?? e.message}`);
    }
}
function readPrivateKeyFile(file) {
    return parsePrivateKey(readKeyBytes(file, 'private key'), file);
}
function readPublicKeyFile(file) {
    return parsePublicKey(readKeyBytes(file, 'public key'), file);
}
/** The 64-byte Ed25519 signature over `data`. */
function signBytes(data, key) {
    return (0,external_node_crypto_namespaceObject.sign)(null, data, key.key);
}
/** Whether `signature` verifies over `data` under `key` (never throws). */
function verifyBytes(data, signature, key) {
    try {
        return (0,external_node_crypto_namespaceObject.verify)(null, data, key.key, signature);
    }
    catch {
        return false;
    }
}
function generateKeyPair() {
    const { privateKey, publicKey } = (0,external_node_crypto_namespaceObject.generateKeyPairSync)('ed25519');
    return {
        privateKeyPem: privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
        publicKeyPem: publicKey.export({ format: 'pem', type: 'spki' }).toString(),
        keyId: keyIdOf(rawOfPublic(publicKey)),
    };
}
function writeNew(file, text, mode) {
    let fd;
    try {
        fd = (0,external_node_fs_namespaceObject.openSync)(file, 'wx', mode);
    }
    catch (e) {
        const code = e.code;
        if (code === 'EEXIST')
            throw new errors_InputError(`${file}: already exists; refusing to overwrite a key file`);
        if (code === 'ENOENT' || code === 'ENOTDIR')
            throw new errors_InputError(`${file}: cannot create: the directory ${external_node_path_default().dirname(external_node_path_default().resolve(file))} does not exist`);
        throw new errors_InputError(`${file}: cannot create: ${code ?? e.message}`);
    }
    try {
        (0,external_node_fs_namespaceObject.fchmodSync)(fd, mode); // the umask could only remove bits, but be explicit
        writeAll(fd, Buffer.from(text));
        (0,external_node_fs_namespaceObject.fsyncSync)(fd);
    }
    finally {
        (0,external_node_fs_namespaceObject.closeSync)(fd);
    }
}
function keys_exists(file) {
    try {
        (0,external_node_fs_namespaceObject.statSync)(file);
        return true;
    }
    catch {
        return false;
    }
}
/**
 * Writes a new key pair: the private key (PEM PKCS#8) with mode 0600 and,
 * when asked, the public key (PEM SPKI). Refuses to overwrite either file and
 * leaves nothing behind on failure.
 */
function writeKeyPair(privateFile, publicFile) {
    if (publicFile !== undefined && publicFile === privateFile)
        throw new errors_InputError('the private and public key files must differ');
    for (const f of [privateFile, publicFile]) {
        if (f !== undefined && keys_exists(f))
            throw new errors_InputError(`${f}: already exists; refusing to overwrite a key file`);
    }
    const pair = generateKeyPair();
    writeNew(privateFile, pair.privateKeyPem, 0o600);
    if (publicFile !== undefined) {
        try {
            writeNew(publicFile, pair.publicKeyPem, 0o644);
        }
        catch (e) {
            (0,external_node_fs_namespaceObject.unlinkSync)(privateFile);
            throw e;
        }
    }
    return pair;
}

;// CONCATENATED MODULE: ./src/receipt/tar.ts


class ReceiptFormatError extends errors_IntegrityError {
    kind;
    member;
    name = 'ReceiptFormatError';
    constructor(kind, message, member) {
        super(message);
        this.kind = kind;
        this.member = member;
    }
}
const tar_BLOCK = 512;
/** Default cap on a receipt's (decompressed) size: 1 GiB. */
const DEFAULT_MAX_RECEIPT_BYTES = 1024 * 1024 * 1024;
function field(h, off, len) {
    const raw = h.subarray(off, off + len);
    const nul = raw.indexOf(0);
    return raw.subarray(0, nul < 0 ? len : nul).toString('latin1');
}
/** An octal numeric field (NUL/space terminated), or a GNU base-256 one; NaN when malformed. */
function numeric(h, off, len) {
    const raw = h.subarray(off, off + len);
    if (raw[0] & 0x80) {
        // base-256 (GNU): big-endian, first byte's top bit is the marker; negative values refused.
        if (raw[0] & 0x40)
            return NaN;
        let v = raw[0] & 0x3f;
        for (let i = 1; i < len; i++) {
            v = v * 256 + raw[i];
            if (v > Number.MAX_SAFE_INTEGER)
                return Infinity;
        }
        return v;
    }
    // As Python's tarfile reads it: up to the first NUL, surrounding spaces ignored.
    const nul = raw.indexOf(0);
    const s = raw
        .subarray(0, nul < 0 ? len : nul)
        .toString('latin1')
        .trim();
    if (s === '')
        return 0;
    if (!/^[0-7]+$/.test(s))
        return NaN;
    return parseInt(s, 8);
}
function checksumOk(h) {
    const stored = numeric(h, 148, 8);
    if (!Number.isFinite(stored))
        return false;
    let unsigned = 0;
    let signed = 0;
    for (let i = 0; i < tar_BLOCK; i++) {
        const b = i >= 148 && i < 156 ? 0x20 : h[i];
        unsigned += b;
        signed += b > 127 ? b - 256 : b;
    }
    return stored === unsigned || stored === signed;
}
function isZero(buf, from, to) {
    for (let i = from; i < to; i++)
        if (buf[i] !== 0)
            return false;
    return true;
}
/** Parses pax extended-header records (`<len> <key>=<value>\n`). */
function parsePax(data, member) {
    const out = new Map();
    let i = 0;
    while (i < data.length) {
        if (data[i] === 0)
            break;
        const sp = data.indexOf(0x20, i);
        if (sp < 0 || sp - i > 20)
            throw new ReceiptFormatError('corrupt_archive', `malformed pax header record at byte ${i}`, member);
        const lenText = data.subarray(i, sp).toString('latin1');
        if (!/^[0-9]+$/.test(lenText))
            throw new ReceiptFormatError('corrupt_archive', 'malformed pax header record length', member);
        const len = Number(lenText);
        if (len <= sp - i + 1 || i + len > data.length || data[i + len - 1] !== 0x0a) {
            throw new ReceiptFormatError('corrupt_archive', 'pax header record overruns its header', member);
        }
        const rec = data.subarray(sp + 1, i + len - 1).toString('utf8');
        const eq = rec.indexOf('=');
        if (eq <= 0)
            throw new ReceiptFormatError('corrupt_archive', 'pax header record without a key', member);
        out.set(rec.slice(0, eq), rec.slice(eq + 1));
        i += len;
    }
    return out;
}
/** Decompresses a gzip receipt (magic 1f 8b) with a size cap; other bytes are returned as they are. */
function maybeGunzip(bytes, maxBytes = DEFAULT_MAX_RECEIPT_BYTES) {
    if (bytes.length < 2 || bytes[0] !== 0x1f || bytes[1] !== 0x8b)
        return bytes;
    try {
        return (0,external_node_zlib_namespaceObject.gunzipSync)(bytes, { maxOutputLength: maxBytes });
    }
    catch (e) {
        const code = e.code;
        if (code === 'ERR_BUFFER_TOO_LARGE' || e instanceof RangeError) {
            throw new ReceiptFormatError('too_large', `gzip receipt decompresses to more than ${maxBytes} bytes`);
        }
        throw new ReceiptFormatError('not_a_receipt', `gzip data is corrupt: ${e.message}`);
    }
}
const TYPE_NAMES = {
    '1': 'a hard link',
    '2': 'a symbolic link',
    '3': 'a character device',
    '4': 'a block device',
    '6': 'a FIFO',
    '7': 'a contiguous file',
    L: 'a GNU long-name record',
    K: 'a GNU long-link record',
    S: 'a GNU sparse file',
    M: 'a GNU multi-volume continuation',
    V: 'a GNU volume header',
};
/**
 * Reads every member of an uncompressed tar held in memory. Throws
 * ReceiptFormatError for anything that is not a plain, complete archive of
 * regular files and directories.
 */
function readTar(buf) {
    if (buf.length === 0)
        throw new ReceiptFormatError('not_a_receipt', 'empty file');
    if (buf.length < tar_BLOCK)
        throw new ReceiptFormatError('not_a_receipt', `not a tar archive (${buf.length} bytes, shorter than one header)`);
    const entries = [];
    let pax;
    let off = 0;
    for (;;) {
        if (off + tar_BLOCK > buf.length) {
            if (off === buf.length && entries.length > 0 && pax === undefined)
                return entries; // no end marker: tolerated (Python does)
            throw new ReceiptFormatError('truncated', `archive ends inside a header at byte ${off}`);
        }
        if (isZero(buf, off, off + tar_BLOCK)) {
            if (!isZero(buf, off, buf.length)) {
                throw new ReceiptFormatError('trailing_data', `non-zero bytes after the end-of-archive marker at byte ${off}`);
            }
            if (pax !== undefined)
                throw new ReceiptFormatError('truncated', 'archive ends after a pax header, before its member');
            if (entries.length === 0)
                throw new ReceiptFormatError('not_a_receipt', 'empty tar archive');
            return entries;
        }
        const h = buf.subarray(off, off + tar_BLOCK);
        if (!checksumOk(h)) {
            throw new ReceiptFormatError(entries.length === 0 && pax === undefined ? 'not_a_receipt' : 'corrupt_archive', entries.length === 0 && pax === undefined
                ? 'not a tar archive (bad header checksum)'
                : `bad header checksum at byte ${off} (a member larger than its header claims, or a corrupt archive)`);
        }
        const magic = h.subarray(257, 263).toString('latin1');
        let name = field(h, 0, 100);
        if (magic === 'ustar\0') {
            const prefix = field(h, 345, 155);
            if (prefix !== '')
                name = `${prefix}/${name}`;
        }
        const typeflag = h[156] === 0 ? '0' : String.fromCharCode(h[156]);
        let size = numeric(h, 124, 12);
        if (pax !== undefined) {
            const p = pax.get('path');
            if (p !== undefined)
                name = p;
            const s = pax.get('size');
            if (s !== undefined)
                size = /^[0-9]{1,20}$/.test(s) ? Number(s) : NaN;
            if (pax.has('linkpath') || [...pax.keys()].some((k) => k.startsWith('GNU.sparse'))) {
                throw new ReceiptFormatError('unsafe_member', `member ${JSON.stringify(name)} carries pax link or sparse data`, name);
            }
        }
        if (!Number.isFinite(size) || size < 0) {
            throw new ReceiptFormatError('corrupt_archive', `member ${JSON.stringify(name)} has a malformed size field`, name);
        }
        const dataStart = off + tar_BLOCK;
        const remaining = buf.length - dataStart;
        // Checked before anything is sliced or allocated: a header may claim gigabytes.
        if (size > remaining) {
            throw new ReceiptFormatError('truncated', `member ${JSON.stringify(name)} declares ${size} bytes but only ${remaining} remain in the archive`, name);
        }
        const data = buf.subarray(dataStart, dataStart + size);
        off = dataStart + Math.ceil(size / tar_BLOCK) * tar_BLOCK;
        if (off > buf.length)
            throw new ReceiptFormatError('truncated', `member ${JSON.stringify(name)}: archive ends inside its padding`, name);
        if (typeflag === 'x' || typeflag === 'g') {
            const records = parsePax(data, name);
            if (typeflag === 'g') {
                // Global headers only matter if they redefine names or sizes; those we refuse.
                if (records.has('path') || records.has('size') || records.has('linkpath')) {
                    throw new ReceiptFormatError('unsafe_member', 'a pax global header redefines member names or sizes');
                }
            }
            else {
                if (pax !== undefined)
                    throw new ReceiptFormatError('corrupt_archive', 'two pax headers in a row');
                pax = records;
            }
            continue;
        }
        pax = undefined;
        if (typeflag === '0') {
            entries.push({ name, type: 'file', data });
        }
        else if (typeflag === '5') {
            if (size !== 0)
                throw new ReceiptFormatError('corrupt_archive', `directory member ${JSON.stringify(name)} has data`, name);
            entries.push({ name, type: 'directory', data });
        }
        else {
            const what = TYPE_NAMES[typeflag] ?? `an unknown member type ${JSON.stringify(typeflag)}`;
            throw new ReceiptFormatError('unsafe_member', `member ${JSON.stringify(name)} is ${what}; only regular files are allowed`, name);
        }
    }
}

;// CONCATENATED MODULE: ./src/receipt/manifest.ts




const FORMAT_VERSION = 1;
const MANIFEST_KEYS = [
    'agent_id',
    'bernstein_version',
    'blob_digests',
    'created_at',
    'format_version',
    'head_hash',
    'steps',
];
const CREATED_AT = /^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$/;
/** `YYYY-MM-DDTHH:MM:SSZ` for a date (UTC, whole seconds). */
function formatCreatedAt(d) {
    return `${d.toISOString().slice(0, 19)}Z`;
}
/** Unix seconds of a `created_at` (the archive's member mtime). */
function createdAtSeconds(createdAt) {
    const t = Date.parse(createdAt);
    return Number.isFinite(t) ? Math.floor(t / 1000) : 0;
}
function encodeManifest(m) {
    const v = {
        agent_id: m.agent_id,
        head_hash: m.head_hash,
        steps: m.steps,
        bernstein_version: m.bernstein_version,
        created_at: m.created_at,
        blob_digests: m.blob_digests,
        format_version: m.format_version,
    };
    return Buffer.from(canonical(v), 'utf8');
}
/** The refs of all steps, first-occurrence order, no duplicates. */
function blobDigestsOf(refLists) {
    const seen = new Set();
    const out = [];
    for (const refs of refLists) {
        for (const r of refs) {
            if (!seen.has(r)) {
                seen.add(r);
                out.push(r);
            }
        }
    }
    return out;
}
/**
 * Reads `manifest.json`: strict UTF-8 JSON, an object, byte-identical to its
 * canonical re-encoding (what is signed is exactly what is read), the keys of
 * format 1 with their types, and a known `format_version`. Throws
 * ReceiptFormatError with kind `manifest_not_json`, `manifest_not_canonical`,
 * `manifest_invalid` or `unknown_format_version`.
 */
function parseManifest(bytes) {
    const member = 'manifest.json';
    let text;
    let v;
    try {
        text = decodeUtf8(bytes);
        v = parse(text);
    }
    catch (e) {
        if (e instanceof JsonParseError)
            throw new ReceiptFormatError('manifest_not_json', `manifest is not JSON: ${e.message}`, member);
        if (e instanceof RangeError)
            throw new ReceiptFormatError('manifest_not_json', 'manifest is too large or too deeply nested', member);
        throw e;
    }
    if (!isJsonObject(v))
        throw new ReceiptFormatError('manifest_invalid', 'manifest is not a JSON object', member);
    // The version decides how to read the rest, so it is checked first.
    const fv = v.format_version;
    if (!isJsonInteger(fv))
        throw new ReceiptFormatError('manifest_invalid', 'manifest has no integer "format_version"', member);
    if (fv !== FORMAT_VERSION) {
        throw new ReceiptFormatError('unknown_format_version', `format_version ${String(fv)} is not supported (this reader knows ${FORMAT_VERSION})`, member);
    }
    let canon;
    try {
        canon = encode_canonicalOfRead(v);
    }
    catch {
        canon = undefined;
    }
    if (canon !== text) {
        throw new ReceiptFormatError('manifest_not_canonical', 'manifest.json is not canonical JSON (sorted keys, no whitespace, no trailing newline)', member);
    }
    const extra = Object.keys(v).filter((k) => !MANIFEST_KEYS.includes(k));
    if (extra.length > 0)
        throw new ReceiptFormatError('manifest_invalid', `manifest has unknown keys: ${extra.join(', ')}`, member);
    const bad = (why) => {
        throw new ReceiptFormatError('manifest_invalid', `manifest ${why}`, member);
    };
    if (typeof v.agent_id !== 'string' || !isSafeId(v.agent_id))
        bad('"agent_id" is not a safe id');
    if (!isSha256Hex(v.head_hash))
        bad('"head_hash" is not 64 lowercase hex digits');
    if (!isJsonInteger(v.steps) || typeof v.steps === 'bigint' || v.steps < 0)
        bad('"steps" is not a non-negative integer');
    if (typeof v.bernstein_version !== 'string')
        bad('"bernstein_version" is not a string');
    if (typeof v.created_at !== 'string' || !CREATED_AT.test(v.created_at))
        bad('"created_at" is not YYYY-MM-DDTHH:MM:SSZ');
    const digests = v.blob_digests;
    if (!Array.isArray(digests) || !digests.every((d) => isSha256Hex(d)))
        bad('"blob_digests" is not a list of SHA-256 hex digests');
    if (new Set(digests).size !== digests.length)
        bad('"blob_digests" lists a digest twice');
    return {
        agent_id: v.agent_id,
        head_hash: v.head_hash,
        steps: v.steps,
        bernstein_version: v.bernstein_version,
        created_at: v.created_at,
        blob_digests: digests,
        format_version: FORMAT_VERSION,
    };
}

;// CONCATENATED MODULE: external "events"
const external_events_namespaceObject = require("events");
// EXTERNAL MODULE: external "fs"
var external_fs_ = __nccwpck_require__(896);
;// CONCATENATED MODULE: external "node:stream"
const external_node_stream_namespaceObject = require("node:stream");
;// CONCATENATED MODULE: external "node:string_decoder"
const external_node_string_decoder_namespaceObject = require("node:string_decoder");
;// CONCATENATED MODULE: external "path"
const external_path_namespaceObject = require("path");
;// CONCATENATED MODULE: external "assert"
const external_assert_namespaceObject = require("assert");
;// CONCATENATED MODULE: external "buffer"
const external_buffer_namespaceObject = require("buffer");
;// CONCATENATED MODULE: external "zlib"
const external_zlib_namespaceObject = require("zlib");
var external_zlib_namespaceObject_0 = /*#__PURE__*/__nccwpck_require__.t(external_zlib_namespaceObject, 2);
;// CONCATENATED MODULE: external "node:assert"
const external_node_assert_namespaceObject = require("node:assert");
;// CONCATENATED MODULE: external "node:fs/promises"
const promises_namespaceObject = require("node:fs/promises");
;// CONCATENATED MODULE: ./node_modules/tar/dist/esm/index.min.js
var index_min_zr=Object.defineProperty;var index_min_Ur=(s,t)=>{for(var e in t)index_min_zr(s,e,{get:t[e],enumerable:!0})};var index_min_Ds=typeof process=="object"&&process?process:{stdout:null,stderr:null},index_min_Wr=s=>!!s&&typeof s=="object"&&(s instanceof index_min_A||s instanceof external_node_stream_namespaceObject||index_min_Gr(s)||index_min_Zr(s)),index_min_Gr=s=>!!s&&typeof s=="object"&&s instanceof external_node_events_namespaceObject.EventEmitter&&typeof s.pipe=="function"&&s.pipe!==external_node_stream_namespaceObject.Writable.prototype.pipe,index_min_Zr=s=>!!s&&typeof s=="object"&&s instanceof external_node_events_namespaceObject.EventEmitter&&typeof s.write=="function"&&typeof s.end=="function",index_min_Q=Symbol("EOF"),index_min_J=Symbol("maybeEmitEnd"),index_min_nt=Symbol("emittedEnd"),index_min_De=Symbol("emittingEnd"),index_min_qt=Symbol("emittedError"),index_min_Ne=Symbol("closed"),index_min_Ns=Symbol("read"),index_min_Ae=Symbol("flush"),index_min_As=Symbol("flushChunk"),index_min_z=Symbol("encoding"),index_min_vt=Symbol("decoder"),index_min_g=Symbol("flowing"),index_min_Qt=Symbol("paused"),index_min_Bt=Symbol("resume"),index_min_b=Symbol("buffer"),index_min_N=Symbol("pipes"),index_min_=Symbol("bufferLength"),bi=Symbol("bufferPush"),index_min_Ie=Symbol("bufferShift"),index_min_L=Symbol("objectMode"),index_min_S=Symbol("destroyed"),_i=Symbol("error"),Oi=Symbol("emitData"),index_min_Is=Symbol("emitEnd"),Ti=Symbol("emitEnd2"),index_min_Z=Symbol("async"),xi=Symbol("abort"),Ce=Symbol("aborted"),index_min_Jt=Symbol("signal"),index_min_Rt=Symbol("dataListeners"),index_min_C=Symbol("discarded"),index_min_jt=s=>Promise.resolve().then(s),index_min_Yr=s=>s(),index_min_Kr=s=>s==="end"||s==="finish"||s==="prefinish",index_min_$r=s=>s instanceof ArrayBuffer||!!s&&typeof s=="object"&&s.constructor&&s.constructor.name==="ArrayBuffer"&&s.byteLength>=0,index_min_Vr=s=>!Buffer.isBuffer(s)&&ArrayBuffer.isView(s),index_min_Fe=class{src;dest;opts;ondrain;constructor(t,e,i){this.src=t,this.dest=e,this.opts=i,this.ondrain=()=>t[index_min_Bt](),this.dest.on("drain",this.ondrain)}unpipe(){this.dest.removeListener("drain",this.ondrain)}proxyErrors(t){}end(){this.unpipe(),this.opts.end&&this.dest.end()}},Li=class extends index_min_Fe{unpipe(){this.src.removeListener("error",this.proxyErrors),super.unpipe()}constructor(t,e,i){super(t,e,i),this.proxyErrors=r=>this.dest.emit("error",r),t.on("error",this.proxyErrors)}},index_min_Xr=s=>!!s.objectMode,index_min_qr=s=>!s.objectMode&&!!s.encoding&&s.encoding!=="buffer",index_min_A=class extends external_node_events_namespaceObject.EventEmitter{[index_min_g]=!1;[index_min_Qt]=!1;[index_min_N]=[];[index_min_b]=[];[index_min_L];[index_min_z];[index_min_Z];[index_min_vt];[index_min_Q]=!1;[index_min_nt]=!1;[index_min_De]=!1;[index_min_Ne]=!1;[index_min_qt]=null;[index_min_]=0;[index_min_S]=!1;[index_min_Jt];[Ce]=!1;[index_min_Rt]=0;[index_min_C]=!1;writable=!0;readable=!0;constructor(...t){let e=t[0]||{};if(super(),e.objectMode&&typeof e.encoding=="string")throw new TypeError("Encoding and objectMode may not be used together");index_min_Xr(e)?(this[index_min_L]=!0,this[index_min_z]=null):index_min_qr(e)?(this[index_min_z]=e.encoding,this[index_min_L]=!1):(this[index_min_L]=!1,this[index_min_z]=null),this[index_min_Z]=!!e.async,this[index_min_vt]=this[index_min_z]?new external_node_string_decoder_namespaceObject.StringDecoder(this[index_min_z]):null,e&&e.debugExposeBuffer===!0&&Object.defineProperty(this,"buffer",{get:()=>this[index_min_b]}),e&&e.debugExposePipes===!0&&Object.defineProperty(this,"pipes",{get:()=>this[index_min_N]});let{signal:i}=e;i&&(this[index_min_Jt]=i,i.aborted?this[xi]():i.addEventListener("abort",()=>this[xi]()))}get bufferLength(){return this[index_min_]}get encoding(){return this[index_min_z]}set encoding(t){throw new Error("Encoding must be set at instantiation time")}setEncoding(t){throw new Error("Encoding must be set at instantiation time")}get objectMode(){return this[index_min_L]}set objectMode(t){throw new Error("objectMode must be set at instantiation time")}get async(){return this[index_min_Z]}set async(t){this[index_min_Z]=this[index_min_Z]||!!t}[xi](){this[Ce]=!0,this.emit("abort",this[index_min_Jt]?.reason),this.destroy(this[index_min_Jt]?.reason)}get aborted(){return this[Ce]}set aborted(t){}write(t,e,i){if(this[Ce])return!1;if(this[index_min_Q])throw new Error("write after end");if(this[index_min_S])return this.emit("error",Object.assign(new Error("Cannot call write after a stream was destroyed"),{code:"ERR_STREAM_DESTROYED"})),!0;typeof e=="function"&&(i=e,e="utf8"),e||(e="utf8");let r=this[index_min_Z]?index_min_jt:index_min_Yr;if(!this[index_min_L]&&!Buffer.isBuffer(t)){if(index_min_Vr(t))t=Buffer.from(t.buffer,t.byteOffset,t.byteLength);else if(index_min_$r(t))t=Buffer.from(t);else if(typeof t!="string")throw new Error("Non-contiguous data written to non-objectMode stream")}return this[index_min_L]?(this[index_min_g]&&this[index_min_]!==0&&this[index_min_Ae](!0),this[index_min_g]?this.emit("data",t):this[bi](t),this[index_min_]!==0&&this.emit("readable"),i&&r(i),this[index_min_g]):t.length?(typeof t=="string"&&!(e===this[index_min_z]&&!this[index_min_vt]?.lastNeed)&&(t=Buffer.from(t,e)),Buffer.isBuffer(t)&&this[index_min_z]&&(t=this[index_min_vt].write(t)),this[index_min_g]&&this[index_min_]!==0&&this[index_min_Ae](!0),this[index_min_g]?this.emit("data",t):this[bi](t),this[index_min_]!==0&&this.emit("readable"),i&&r(i),this[index_min_g]):(this[index_min_]!==0&&this.emit("readable"),i&&r(i),this[index_min_g])}read(t){if(this[index_min_S])return null;if(this[index_min_C]=!1,this[index_min_]===0||t===0||t&&t>this[index_min_])return this[index_min_J](),null;this[index_min_L]&&(t=null),this[index_min_b].length>1&&!this[index_min_L]&&(this[index_min_b]=[this[index_min_z]?this[index_min_b].join(""):Buffer.concat(this[index_min_b],this[index_min_])]);let e=this[index_min_Ns](t||null,this[index_min_b][0]);return this[index_min_J](),e}[index_min_Ns](t,e){if(this[index_min_L])this[index_min_Ie]();else{let i=e;t===i.length||t===null?this[index_min_Ie]():typeof i=="string"?(this[index_min_b][0]=i.slice(t),e=i.slice(0,t),this[index_min_]-=t):(this[index_min_b][0]=i.subarray(t),e=i.subarray(0,t),this[index_min_]-=t)}return this.emit("data",e),!this[index_min_b].length&&!this[index_min_Q]&&this.emit("drain"),e}end(t,e,i){return typeof t=="function"&&(i=t,t=void 0),typeof e=="function"&&(i=e,e="utf8"),t!==void 0&&this.write(t,e),i&&this.once("end",i),this[index_min_Q]=!0,this.writable=!1,(this[index_min_g]||!this[index_min_Qt])&&this[index_min_J](),this}[index_min_Bt](){this[index_min_S]||(!this[index_min_Rt]&&!this[index_min_N].length&&(this[index_min_C]=!0),this[index_min_Qt]=!1,this[index_min_g]=!0,this.emit("resume"),this[index_min_b].length?this[index_min_Ae]():this[index_min_Q]?this[index_min_J]():this.emit("drain"))}resume(){return this[index_min_Bt]()}pause(){this[index_min_g]=!1,this[index_min_Qt]=!0,this[index_min_C]=!1}get destroyed(){return this[index_min_S]}get flowing(){return this[index_min_g]}get paused(){return this[index_min_Qt]}[bi](t){this[index_min_L]?this[index_min_]+=1:this[index_min_]+=t.length,this[index_min_b].push(t)}[index_min_Ie](){return this[index_min_L]?this[index_min_]-=1:this[index_min_]-=this[index_min_b][0].length,this[index_min_b].shift()}[index_min_Ae](t=!1){do;while(this[index_min_As](this[index_min_Ie]())&&this[index_min_b].length);!t&&!this[index_min_b].length&&!this[index_min_Q]&&this.emit("drain")}[index_min_As](t){return this.emit("data",t),this[index_min_g]}pipe(t,e){if(this[index_min_S])return t;this[index_min_C]=!1;let i=this[index_min_nt];return e=e||{},t===index_min_Ds.stdout||t===index_min_Ds.stderr?e.end=!1:e.end=e.end!==!1,e.proxyErrors=!!e.proxyErrors,i?e.end&&t.end():(this[index_min_N].push(e.proxyErrors?new Li(this,t,e):new index_min_Fe(this,t,e)),this[index_min_Z]?index_min_jt(()=>this[index_min_Bt]()):this[index_min_Bt]()),t}unpipe(t){let e=this[index_min_N].find(i=>i.dest===t);e&&(this[index_min_N].length===1?(this[index_min_g]&&this[index_min_Rt]===0&&(this[index_min_g]=!1),this[index_min_N]=[]):this[index_min_N].splice(this[index_min_N].indexOf(e),1),e.unpipe())}addListener(t,e){return this.on(t,e)}on(t,e){let i=super.on(t,e);if(t==="data")this[index_min_C]=!1,this[index_min_Rt]++,!this[index_min_N].length&&!this[index_min_g]&&this[index_min_Bt]();else if(t==="readable"&&this[index_min_]!==0)super.emit("readable");else if(index_min_Kr(t)&&this[index_min_nt])super.emit(t),this.removeAllListeners(t);else if(t==="error"&&this[index_min_qt]){let r=e;this[index_min_Z]?index_min_jt(()=>r.call(this,this[index_min_qt])):r.call(this,this[index_min_qt])}return i}removeListener(t,e){return this.off(t,e)}off(t,e){let i=super.off(t,e);return t==="data"&&(this[index_min_Rt]=this.listeners("data").length,this[index_min_Rt]===0&&!this[index_min_C]&&!this[index_min_N].length&&(this[index_min_g]=!1)),i}removeAllListeners(t){let e=super.removeAllListeners(t);return(t==="data"||t===void 0)&&(this[index_min_Rt]=0,!this[index_min_C]&&!this[index_min_N].length&&(this[index_min_g]=!1)),e}get emittedEnd(){return this[index_min_nt]}[index_min_J](){!this[index_min_De]&&!this[index_min_nt]&&!this[index_min_S]&&this[index_min_b].length===0&&this[index_min_Q]&&(this[index_min_De]=!0,this.emit("end"),this.emit("prefinish"),this.emit("finish"),this[index_min_Ne]&&this.emit("close"),this[index_min_De]=!1)}emit(t,...e){let i=e[0];if(t!=="error"&&t!=="close"&&t!==index_min_S&&this[index_min_S])return!1;if(t==="data")return!this[index_min_L]&&!i?!1:this[index_min_Z]?(index_min_jt(()=>this[Oi](i)),!0):this[Oi](i);if(t==="end")return this[index_min_Is]();if(t==="close"){if(this[index_min_Ne]=!0,!this[index_min_nt]&&!this[index_min_S])return!1;let n=super.emit("close");return this.removeAllListeners("close"),n}else if(t==="error"){this[index_min_qt]=i,super.emit(_i,i);let n=!this[index_min_Jt]||this.listeners("error").length?super.emit("error",i):!1;return this[index_min_J](),n}else if(t==="resume"){let n=super.emit("resume");return this[index_min_J](),n}else if(t==="finish"||t==="prefinish"){let n=super.emit(t);return this.removeAllListeners(t),n}let r=super.emit(t,...e);return this[index_min_J](),r}[Oi](t){for(let i of this[index_min_N])i.dest.write(t)===!1&&this.pause();let e=this[index_min_C]?!1:super.emit("data",t);return this[index_min_J](),e}[index_min_Is](){return this[index_min_nt]?!1:(this[index_min_nt]=!0,this.readable=!1,this[index_min_Z]?(index_min_jt(()=>this[Ti]()),!0):this[Ti]())}[Ti](){if(this[index_min_vt]){let e=this[index_min_vt].end();if(e){for(let i of this[index_min_N])i.dest.write(e);this[index_min_C]||super.emit("data",e)}}for(let e of this[index_min_N])e.end();let t=super.emit("end");return this.removeAllListeners("end"),t}async collect(){let t=Object.assign([],{dataLength:0});this[index_min_L]||(t.dataLength=0);let e=this.promise();return this.on("data",i=>{t.push(i),this[index_min_L]||(t.dataLength+=i.length)}),await e,t}async concat(){if(this[index_min_L])throw new Error("cannot concat in objectMode");let t=await this.collect();return this[index_min_z]?t.join(""):Buffer.concat(t,t.dataLength)}async promise(){return new Promise((t,e)=>{this.on(index_min_S,()=>e(new Error("stream destroyed"))),this.on("error",i=>e(i)),this.on("end",()=>t())})}[Symbol.asyncIterator](){this[index_min_C]=!1;let t=!1,e=async()=>(this.pause(),t=!0,{value:void 0,done:!0});return{next:()=>{if(t)return e();let r=this.read();if(r!==null)return Promise.resolve({done:!1,value:r});if(this[index_min_Q])return e();let n,o,h=d=>{this.off("data",a),this.off("end",l),this.off(index_min_S,c),e(),o(d)},a=d=>{this.off("error",h),this.off("end",l),this.off(index_min_S,c),this.pause(),n({value:d,done:!!this[index_min_Q]})},l=()=>{this.off("error",h),this.off("data",a),this.off(index_min_S,c),e(),n({done:!0,value:void 0})},c=()=>h(new Error("stream destroyed"));return new Promise((d,y)=>{o=y,n=d,this.once(index_min_S,c),this.once("error",h),this.once("end",l),this.once("data",a)})},throw:e,return:e,[Symbol.asyncIterator](){return this},[Symbol.asyncDispose]:async()=>{}}}[Symbol.iterator](){this[index_min_C]=!1;let t=!1,e=()=>(this.pause(),this.off(_i,e),this.off(index_min_S,e),this.off("end",e),t=!0,{done:!0,value:void 0}),i=()=>{if(t)return e();let r=this.read();return r===null?e():{done:!1,value:r}};return this.once("end",e),this.once(_i,e),this.once(index_min_S,e),{next:i,throw:e,return:e,[Symbol.iterator](){return this},[Symbol.dispose]:()=>{}}}destroy(t){if(this[index_min_S])return t?this.emit("error",t):this.emit(index_min_S),this;this[index_min_S]=!0,this[index_min_C]=!0,this[index_min_b].length=0,this[index_min_]=0;let e=this;return typeof e.close=="function"&&!this[index_min_Ne]&&e.close(),t?this.emit("error",t):this.emit(index_min_S),this}static get isStream(){return index_min_Wr}};var index_min_Jr=external_fs_.writev,index_min_ht=Symbol("_autoClose"),index_min_H=Symbol("_close"),index_min_te=Symbol("_ended"),index_min_u=Symbol("_fd"),Ni=Symbol("_finished"),index_min_tt=Symbol("_flags"),Ai=Symbol("_flush"),ki=Symbol("_handleChunk"),Mi=Symbol("_makeBuf"),index_min_ie=Symbol("_mode"),ke=Symbol("_needDrain"),index_min_Ut=Symbol("_onerror"),index_min_Ht=Symbol("_onopen"),Ii=Symbol("_onread"),index_min_Pt=Symbol("_onwrite"),index_min_at=Symbol("_open"),index_min_U=Symbol("_path"),index_min_ot=Symbol("_pos"),index_min_Y=Symbol("_queue"),index_min_zt=Symbol("_read"),Ci=Symbol("_readSize"),index_min_j=Symbol("_reading"),index_min_ee=Symbol("_remain"),Fi=Symbol("_size"),index_min_Me=Symbol("_write"),index_min_gt=Symbol("_writing"),ve=Symbol("_defaultFlag"),index_min_bt=Symbol("_errored"),index_min_t=class extends index_min_A{[index_min_bt]=!1;[index_min_u];[index_min_U];[Ci];[index_min_j]=!1;[Fi];[index_min_ee];[index_min_ht];constructor(t,e){if(e=e||{},super(e),this.readable=!0,this.writable=!1,typeof t!="string")throw new TypeError("path must be a string");this[index_min_bt]=!1,this[index_min_u]=typeof e.fd=="number"?e.fd:void 0,this[index_min_U]=t,this[Ci]=e.readSize||16*1024*1024,this[index_min_j]=!1,this[Fi]=typeof e.size=="number"?e.size:1/0,this[index_min_ee]=this[Fi],this[index_min_ht]=typeof e.autoClose=="boolean"?e.autoClose:!0,typeof this[index_min_u]=="number"?this[index_min_zt]():this[index_min_at]()}get fd(){return this[index_min_u]}get path(){return this[index_min_U]}write(){throw new TypeError("this is a readable stream")}end(){throw new TypeError("this is a readable stream")}[index_min_at](){external_fs_.open(this[index_min_U],"r",(t,e)=>this[index_min_Ht](t,e))}[index_min_Ht](t,e){t?this[index_min_Ut](t):(this[index_min_u]=e,this.emit("open",e),this[index_min_zt]())}[Mi](){return Buffer.allocUnsafe(Math.min(this[Ci],this[index_min_ee]))}[index_min_zt](){if(!this[index_min_j]){this[index_min_j]=!0;let t=this[Mi]();if(t.length===0)return process.nextTick(()=>this[Ii](null,0,t));external_fs_.read(this[index_min_u],t,0,t.length,null,(e,i,r)=>this[Ii](e,i,r))}}[Ii](t,e,i){this[index_min_j]=!1,t?this[index_min_Ut](t):this[ki](e,i)&&this[index_min_zt]()}[index_min_H](){if(this[index_min_ht]&&typeof this[index_min_u]=="number"){let t=this[index_min_u];this[index_min_u]=void 0,external_fs_.close(t,e=>e?this.emit("error",e):this.emit("close"))}}[index_min_Ut](t){this[index_min_j]=!0,this[index_min_H](),this.emit("error",t)}[ki](t,e){let i=!1;return this[index_min_ee]-=t,t>0&&(i=super.write(t<e.length?e.subarray(0,t):e)),(t===0||this[index_min_ee]<=0)&&(i=!1,this[index_min_H](),super.end()),i}emit(t,...e){switch(t){case"prefinish":case"finish":return!1;case"drain":return typeof this[index_min_u]=="number"&&this[index_min_zt](),!1;case"error":return this[index_min_bt]?!1:(this[index_min_bt]=!0,super.emit(t,...e));default:return super.emit(t,...e)}}},index_min_Be=class extends index_min_t{[index_min_at](){let t=!0;try{this[index_min_Ht](null,external_fs_.openSync(this[index_min_U],"r")),t=!1}finally{t&&this[index_min_H]()}}[index_min_zt](){let t=!0;try{if(!this[index_min_j]){this[index_min_j]=!0;do{let e=this[Mi](),i=e.length===0?0:external_fs_.readSync(this[index_min_u],e,0,e.length,null);if(!this[ki](i,e))break}while(!0);this[index_min_j]=!1}t=!1}finally{t&&this[index_min_H]()}}[index_min_H](){if(this[index_min_ht]&&typeof this[index_min_u]=="number"){let t=this[index_min_u];this[index_min_u]=void 0,external_fs_.closeSync(t),this.emit("close")}}},index_min_et=class extends external_events_namespaceObject{readable=!1;writable=!0;[index_min_bt]=!1;[index_min_gt]=!1;[index_min_te]=!1;[index_min_Y]=[];[ke]=!1;[index_min_U];[index_min_ie];[index_min_ht];[index_min_u];[ve];[index_min_tt];[Ni]=!1;[index_min_ot];constructor(t,e){e=e||{},super(e),this[index_min_U]=t,this[index_min_u]=typeof e.fd=="number"?e.fd:void 0,this[index_min_ie]=e.mode===void 0?438:e.mode,this[index_min_ot]=typeof e.start=="number"?e.start:void 0,this[index_min_ht]=typeof e.autoClose=="boolean"?e.autoClose:!0;let i=this[index_min_ot]!==void 0?"r+":"w";this[ve]=e.flags===void 0,this[index_min_tt]=e.flags===void 0?i:e.flags,this[index_min_u]===void 0&&this[index_min_at]()}emit(t,...e){if(t==="error"){if(this[index_min_bt])return!1;this[index_min_bt]=!0}return super.emit(t,...e)}get fd(){return this[index_min_u]}get path(){return this[index_min_U]}[index_min_Ut](t){this[index_min_H](),this[index_min_gt]=!0,this.emit("error",t)}[index_min_at](){external_fs_.open(this[index_min_U],this[index_min_tt],this[index_min_ie],(t,e)=>this[index_min_Ht](t,e))}[index_min_Ht](t,e){this[ve]&&this[index_min_tt]==="r+"&&t&&t.code==="ENOENT"?(this[index_min_tt]="w",this[index_min_at]()):t?this[index_min_Ut](t):(this[index_min_u]=e,this.emit("open",e),this[index_min_gt]||this[Ai]())}end(t,e){return t&&this.write(t,e),this[index_min_te]=!0,!this[index_min_gt]&&!this[index_min_Y].length&&typeof this[index_min_u]=="number"&&this[index_min_Pt](null,0),this}write(t,e){return typeof t=="string"&&(t=Buffer.from(t,e)),this[index_min_te]?(this.emit("error",new Error("write() after end()")),!1):this[index_min_u]===void 0||this[index_min_gt]||this[index_min_Y].length?(this[index_min_Y].push(t),this[ke]=!0,!1):(this[index_min_gt]=!0,this[index_min_Me](t),!0)}[index_min_Me](t){external_fs_.write(this[index_min_u],t,0,t.length,this[index_min_ot],(e,i)=>this[index_min_Pt](e,i))}[index_min_Pt](t,e){t?this[index_min_Ut](t):(this[index_min_ot]!==void 0&&typeof e=="number"&&(this[index_min_ot]+=e),this[index_min_Y].length?this[Ai]():(this[index_min_gt]=!1,this[index_min_te]&&!this[Ni]?(this[Ni]=!0,this[index_min_H](),this.emit("finish")):this[ke]&&(this[ke]=!1,this.emit("drain"))))}[Ai](){if(this[index_min_Y].length===0)this[index_min_te]&&this[index_min_Pt](null,0);else if(this[index_min_Y].length===1)this[index_min_Me](this[index_min_Y].pop());else{let t=this[index_min_Y];this[index_min_Y]=[],index_min_Jr(this[index_min_u],t,this[index_min_ot],(e,i)=>this[index_min_Pt](e,i))}}[index_min_H](){if(this[index_min_ht]&&typeof this[index_min_u]=="number"){let t=this[index_min_u];this[index_min_u]=void 0,external_fs_.close(t,e=>e?this.emit("error",e):this.emit("close"))}}},index_min_Wt=class extends index_min_et{[index_min_at](){let t;if(this[ve]&&this[index_min_tt]==="r+")try{t=external_fs_.openSync(this[index_min_U],this[index_min_tt],this[index_min_ie])}catch(e){if(e?.code==="ENOENT")return this[index_min_tt]="w",this[index_min_at]();throw e}else t=external_fs_.openSync(this[index_min_U],this[index_min_tt],this[index_min_ie]);this[index_min_Ht](null,t)}[index_min_H](){if(this[index_min_ht]&&typeof this[index_min_u]=="number"){let t=this[index_min_u];this[index_min_u]=void 0,external_fs_.closeSync(t),this.emit("close")}}[index_min_Me](t){let e=!0;try{this[index_min_Pt](null,external_fs_.writeSync(this[index_min_u],t,0,t.length,this[index_min_ot])),e=!1}finally{if(e)try{this[index_min_H]()}catch{}}}};var index_min_jr=new Map([["C","cwd"],["f","file"],["z","gzip"],["P","preservePaths"],["U","unlink"],["strip-components","strip"],["stripComponents","strip"],["keep-newer","newer"],["keepNewer","newer"],["keep-newer-files","newer"],["keepNewerFiles","newer"],["k","keep"],["keep-existing","keep"],["keepExisting","keep"],["m","noMtime"],["no-mtime","noMtime"],["p","preserveOwner"],["L","follow"],["h","follow"],["onentry","onReadEntry"]]),index_min_Fs=s=>!!s.sync&&!!s.file,index_min_ks=s=>!s.sync&&!!s.file,index_min_Ms=s=>!!s.sync&&!s.file,index_min_vs=s=>!s.sync&&!s.file;var index_min_Bs=s=>!!s.file;var index_min_tn=s=>{let t=index_min_jr.get(s);return t||s},index_min_se=(s={})=>{if(!s)return{};let t={};for(let[e,i]of Object.entries(s)){let r=index_min_tn(e);t[r]=i}return t.chmod===void 0&&t.noChmod===!1&&(t.chmod=!0),delete t.noChmod,t};var index_min_K=(s,t,e,i,r)=>Object.assign((n=[],o,h)=>{Array.isArray(n)&&(o=n,n={}),typeof o=="function"&&(h=o,o=void 0),o=o?Array.from(o):[];let a=index_min_se(n);if(r?.(a,o),index_min_Fs(a)){if(typeof h=="function")throw new TypeError("callback not supported for sync tar functions");return s(a,o)}else if(index_min_ks(a)){let l=t(a,o);return h?l.then(()=>h(),h):l}else if(index_min_Ms(a)){if(typeof h=="function")throw new TypeError("callback not supported for sync tar functions");return e(a,o)}else if(index_min_vs(a)){if(typeof h=="function")throw new TypeError("callback only supported with file option");return i(a,o)}throw new Error("impossible options??")},{syncFile:s,asyncFile:t,syncNoFile:e,asyncNoFile:i,validate:r});var index_min_sn=external_zlib_namespaceObject.constants||{ZLIB_VERNUM:4736},index_min_v=Object.freeze(Object.assign(Object.create(null),{Z_NO_FLUSH:0,Z_PARTIAL_FLUSH:1,Z_SYNC_FLUSH:2,Z_FULL_FLUSH:3,Z_FINISH:4,Z_BLOCK:5,Z_OK:0,Z_STREAM_END:1,Z_NEED_DICT:2,Z_ERRNO:-1,Z_STREAM_ERROR:-2,Z_DATA_ERROR:-3,Z_MEM_ERROR:-4,Z_BUF_ERROR:-5,Z_VERSION_ERROR:-6,Z_NO_COMPRESSION:0,Z_BEST_SPEED:1,Z_BEST_COMPRESSION:9,Z_DEFAULT_COMPRESSION:-1,Z_FILTERED:1,Z_HUFFMAN_ONLY:2,Z_RLE:3,Z_FIXED:4,Z_DEFAULT_STRATEGY:0,DEFLATE:1,INFLATE:2,GZIP:3,GUNZIP:4,DEFLATERAW:5,INFLATERAW:6,UNZIP:7,BROTLI_DECODE:8,BROTLI_ENCODE:9,Z_MIN_WINDOWBITS:8,Z_MAX_WINDOWBITS:15,Z_DEFAULT_WINDOWBITS:15,Z_MIN_CHUNK:64,Z_MAX_CHUNK:1/0,Z_DEFAULT_CHUNK:16384,Z_MIN_MEMLEVEL:1,Z_MAX_MEMLEVEL:9,Z_DEFAULT_MEMLEVEL:8,Z_MIN_LEVEL:-1,Z_MAX_LEVEL:9,Z_DEFAULT_LEVEL:-1,BROTLI_OPERATION_PROCESS:0,BROTLI_OPERATION_FLUSH:1,BROTLI_OPERATION_FINISH:2,BROTLI_OPERATION_EMIT_METADATA:3,BROTLI_MODE_GENERIC:0,BROTLI_MODE_TEXT:1,BROTLI_MODE_FONT:2,BROTLI_DEFAULT_MODE:0,BROTLI_MIN_QUALITY:0,BROTLI_MAX_QUALITY:11,BROTLI_DEFAULT_QUALITY:11,BROTLI_MIN_WINDOW_BITS:10,BROTLI_MAX_WINDOW_BITS:24,BROTLI_LARGE_MAX_WINDOW_BITS:30,BROTLI_DEFAULT_WINDOW:22,BROTLI_MIN_INPUT_BLOCK_BITS:16,BROTLI_MAX_INPUT_BLOCK_BITS:24,BROTLI_PARAM_MODE:0,BROTLI_PARAM_QUALITY:1,BROTLI_PARAM_LGWIN:2,BROTLI_PARAM_LGBLOCK:3,BROTLI_PARAM_DISABLE_LITERAL_CONTEXT_MODELING:4,BROTLI_PARAM_SIZE_HINT:5,BROTLI_PARAM_LARGE_WINDOW:6,BROTLI_PARAM_NPOSTFIX:7,BROTLI_PARAM_NDIRECT:8,BROTLI_DECODER_RESULT_ERROR:0,BROTLI_DECODER_RESULT_SUCCESS:1,BROTLI_DECODER_RESULT_NEEDS_MORE_INPUT:2,BROTLI_DECODER_RESULT_NEEDS_MORE_OUTPUT:3,BROTLI_DECODER_PARAM_DISABLE_RING_BUFFER_REALLOCATION:0,BROTLI_DECODER_PARAM_LARGE_WINDOW:1,BROTLI_DECODER_NO_ERROR:0,BROTLI_DECODER_SUCCESS:1,BROTLI_DECODER_NEEDS_MORE_INPUT:2,BROTLI_DECODER_NEEDS_MORE_OUTPUT:3,BROTLI_DECODER_ERROR_FORMAT_EXUBERANT_NIBBLE:-1,BROTLI_DECODER_ERROR_FORMAT_RESERVED:-2,BROTLI_DECODER_ERROR_FORMAT_EXUBERANT_META_NIBBLE:-3,BROTLI_DECODER_ERROR_FORMAT_SIMPLE_HUFFMAN_ALPHABET:-4,BROTLI_DECODER_ERROR_FORMAT_SIMPLE_HUFFMAN_SAME:-5,BROTLI_DECODER_ERROR_FORMAT_CL_SPACE:-6,BROTLI_DECODER_ERROR_FORMAT_HUFFMAN_SPACE:-7,BROTLI_DECODER_ERROR_FORMAT_CONTEXT_MAP_REPEAT:-8,BROTLI_DECODER_ERROR_FORMAT_BLOCK_LENGTH_1:-9,BROTLI_DECODER_ERROR_FORMAT_BLOCK_LENGTH_2:-10,BROTLI_DECODER_ERROR_FORMAT_TRANSFORM:-11,BROTLI_DECODER_ERROR_FORMAT_DICTIONARY:-12,BROTLI_DECODER_ERROR_FORMAT_WINDOW_BITS:-13,BROTLI_DECODER_ERROR_FORMAT_PADDING_1:-14,BROTLI_DECODER_ERROR_FORMAT_PADDING_2:-15,BROTLI_DECODER_ERROR_FORMAT_DISTANCE:-16,BROTLI_DECODER_ERROR_DICTIONARY_NOT_SET:-19,BROTLI_DECODER_ERROR_INVALID_ARGUMENTS:-20,BROTLI_DECODER_ERROR_ALLOC_CONTEXT_MODES:-21,BROTLI_DECODER_ERROR_ALLOC_TREE_GROUPS:-22,BROTLI_DECODER_ERROR_ALLOC_CONTEXT_MAP:-25,BROTLI_DECODER_ERROR_ALLOC_RING_BUFFER_1:-26,BROTLI_DECODER_ERROR_ALLOC_RING_BUFFER_2:-27,BROTLI_DECODER_ERROR_ALLOC_BLOCK_TYPE_TREES:-30,BROTLI_DECODER_ERROR_UNREACHABLE:-31},index_min_sn));var index_min_rn=external_buffer_namespaceObject.Buffer.concat,index_min_zs=Object.getOwnPropertyDescriptor(external_buffer_namespaceObject.Buffer,"concat"),index_min_nn=s=>s,Bi=index_min_zs?.writable===!0||index_min_zs?.set!==void 0?s=>{external_buffer_namespaceObject.Buffer.concat=s?index_min_nn:index_min_rn}:s=>{},index_min_Tt=Symbol("_superWrite"),index_min_Gt=class extends Error{code;errno;constructor(t,e){super("zlib: "+t.message,{cause:t}),this.code=t.code,this.errno=t.errno,this.code||(this.code="ZLIB_ERROR"),this.message="zlib: "+t.message,Error.captureStackTrace(this,e??this.constructor)}get name(){return"ZlibError"}},Pi=Symbol("flushFlag"),index_min_re=class extends index_min_A{#t=!1;#i=!1;#s;#n;#r;#e;#o;get sawError(){return this.#t}get handle(){return this.#e}get flushFlag(){return this.#s}constructor(t,e){if(!t||typeof t!="object")throw new TypeError("invalid options for ZlibBase constructor");if(super(t),this.#s=t.flush??0,this.#n=t.finishFlush??0,this.#r=t.fullFlushFlag??0,typeof external_zlib_namespaceObject_0[e]!="function")throw new TypeError("Compression method not supported: "+e);try{this.#e=new external_zlib_namespaceObject_0[e](t)}catch(i){throw new index_min_Gt(i,this.constructor)}this.#o=i=>{this.#t||(this.#t=!0,this.close(),this.emit("error",i))},this.#e?.on("error",i=>this.#o(new index_min_Gt(i))),this.once("end",()=>this.close)}close(){this.#e&&(this.#e.close(),this.#e=void 0,this.emit("close"))}reset(){if(!this.#t)return external_assert_namespaceObject(this.#e,"zlib binding closed"),this.#e.reset?.()}flush(t){this.ended||(typeof t!="number"&&(t=this.#r),this.write(Object.assign(external_buffer_namespaceObject.Buffer.alloc(0),{[Pi]:t})))}end(t,e,i){return typeof t=="function"&&(i=t,e=void 0,t=void 0),typeof e=="function"&&(i=e,e=void 0),t&&(e?this.write(t,e):this.write(t)),this.flush(this.#n),this.#i=!0,super.end(i)}get ended(){return this.#i}[index_min_Tt](t){return super.write(t)}write(t,e,i){if(typeof e=="function"&&(i=e,e="utf8"),typeof t=="string"&&(t=external_buffer_namespaceObject.Buffer.from(t,e)),this.#t)return;external_assert_namespaceObject(this.#e,"zlib binding closed");let r=this.#e._handle,n=r.close;r.close=()=>{};let o=this.#e.close;this.#e.close=()=>{},Bi(!0);let h;try{let l=typeof t[Pi]=="number"?t[Pi]:this.#s;h=this.#e._processChunk(t,l),Bi(!1)}catch(l){Bi(!1),this.#o(new index_min_Gt(l,this.write))}finally{this.#e&&(this.#e._handle=r,r.close=n,this.#e.close=o,this.#e.removeAllListeners("error"))}this.#e&&this.#e.on("error",l=>this.#o(new index_min_Gt(l,this.write)));let a;if(h)if(Array.isArray(h)&&h.length>0){let l=h[0];a=this[index_min_Tt](external_buffer_namespaceObject.Buffer.from(l));for(let c=1;c<h.length;c++)a=this[index_min_Tt](h[c])}else a=this[index_min_Tt](external_buffer_namespaceObject.Buffer.from(h));return i&&i(),a}},index_min_Pe=class extends index_min_re{#t;#i;constructor(t,e){t=t||{},t.flush=t.flush||index_min_v.Z_NO_FLUSH,t.finishFlush=t.finishFlush||index_min_v.Z_FINISH,t.fullFlushFlag=index_min_v.Z_FULL_FLUSH,super(t,e),this.#t=t.level,this.#i=t.strategy}params(t,e){if(!this.sawError){if(!this.handle)throw new Error("cannot switch params when binding is closed");if(!this.handle.params)throw new Error("not supported in this implementation");if(this.#t!==t||this.#i!==e){this.flush(index_min_v.Z_SYNC_FLUSH),external_assert_namespaceObject(this.handle,"zlib binding closed");let i=this.handle.flush;this.handle.flush=(r,n)=>{typeof r=="function"&&(n=r,r=this.flushFlag),this.flush(r),n?.()};try{this.handle.params(t,e)}finally{this.handle.flush=i}this.handle&&(this.#t=t,this.#i=e)}}}};var index_min_ze=class extends index_min_Pe{#t;constructor(t){super(t,"Gzip"),this.#t=t&&!!t.portable}[index_min_Tt](t){return this.#t?(this.#t=!1,t[9]=255,super[index_min_Tt](t)):super[index_min_Tt](t)}};var index_min_Ue=class extends index_min_Pe{constructor(t){super(t,"Unzip")}},index_min_He=class extends index_min_re{constructor(t,e){t=t||{},t.flush=t.flush||index_min_v.BROTLI_OPERATION_PROCESS,t.finishFlush=t.finishFlush||index_min_v.BROTLI_OPERATION_FINISH,t.fullFlushFlag=index_min_v.BROTLI_OPERATION_FLUSH,super(t,e)}},index_min_We=class extends index_min_He{constructor(t){super(t,"BrotliCompress")}},index_min_Ge=class extends index_min_He{constructor(t){super(t,"BrotliDecompress")}},index_min_Ze=class extends index_min_re{constructor(t,e){t=t||{},t.flush=t.flush||index_min_v.ZSTD_e_continue,t.finishFlush=t.finishFlush||index_min_v.ZSTD_e_end,t.fullFlushFlag=index_min_v.ZSTD_e_flush,super(t,e)}},index_min_Ye=class extends index_min_Ze{constructor(t){super(t,"ZstdCompress")}},index_min_Ke=class extends index_min_Ze{constructor(t){super(t,"ZstdDecompress")}};var index_min_Us=(s,t)=>{if(Number.isSafeInteger(s))s<0?index_min_an(s,t):index_min_hn(s,t);else throw Error("cannot encode number outside of javascript safe integer range");return t},index_min_hn=(s,t)=>{t[0]=128;for(var e=t.length;e>1;e--)t[e-1]=s&255,s=Math.floor(s/256)},index_min_an=(s,t)=>{t[0]=255;var e=!1;s=s*-1;for(var i=t.length;i>1;i--){var r=s&255;s=Math.floor(s/256),e?t[i-1]=index_min_Ws(r):r===0?t[i-1]=0:(e=!0,t[i-1]=index_min_Gs(r))}},index_min_Hs=s=>{let t=s[0],e=t===128?index_min_cn(s.subarray(1,s.length)):t===255?index_min_ln(s):null;if(e===null)throw Error("invalid base256 encoding");if(!Number.isSafeInteger(e))throw Error("parsed number outside of javascript safe integer range");return e},index_min_ln=s=>{for(var t=s.length,e=0,i=!1,r=t-1;r>-1;r--){var n=Number(s[r]),o;i?o=index_min_Ws(n):n===0?o=n:(i=!0,o=index_min_Gs(n)),o!==0&&(e-=o*Math.pow(256,t-r-1))}return e},index_min_cn=s=>{for(var t=s.length,e=0,i=t-1;i>-1;i--){var r=Number(s[i]);r!==0&&(e+=r*Math.pow(256,t-i-1))}return e},index_min_Ws=s=>(255^s)&255,index_min_Gs=s=>(255^s)+1&255;var Hi={};index_min_Ur(Hi,{code:()=>index_min_$e,isCode:()=>index_min_ne,isName:()=>index_min_dn,name:()=>index_min_oe,normalFsTypes:()=>Ui});var index_min_ne=s=>index_min_oe.has(s),index_min_dn=s=>index_min_$e.has(s),Ui=new Set(["0","","1","2","3","4","5","6","7","D"]),index_min_oe=new Map([["0","File"],["","OldFile"],["1","Link"],["2","SymbolicLink"],["3","CharacterDevice"],["4","BlockDevice"],["5","Directory"],["6","FIFO"],["7","ContiguousFile"],["g","GlobalExtendedHeader"],["x","ExtendedHeader"],["A","SolarisACL"],["D","GNUDumpDir"],["I","Inode"],["K","NextFileHasLongLinkpath"],["L","NextFileHasLongPath"],["M","ContinuationFile"],["N","OldGnuLongPath"],["S","SparseFile"],["V","TapeVolumeHeader"],["X","OldExtendedHeader"]]),index_min_$e=new Map(Array.from(index_min_oe).map(s=>[s[1],s[0]]));var index_min_mn=s=>s===void 0||s<0?void 0:s,index_min_F=class{cksumValid=!1;needPax=!1;nullBlock=!1;block;path;mode;uid;gid;size;cksum;#t="Unsupported";linkpath;uname;gname;devmaj=0;devmin=0;atime;ctime;mtime;charset;comment;constructor(t,e=0,i,r){Buffer.isBuffer(t)?this.decode(t,e||0,i,r):t&&this.#i(t)}decode(t,e,i,r){if(e||(e=0),!t||!(t.length>=e+512))throw new Error("need 512 bytes for header");let n=index_min_xt(t,e+156,1),o=Ui.has(n),h=o?i:void 0,a=o?r:void 0;if(this.path=h?.path??index_min_xt(t,e,100),this.mode=h?.mode??a?.mode??index_min_lt(t,e+100,8),this.uid=h?.uid??a?.uid??index_min_lt(t,e+108,8),this.gid=h?.gid??a?.gid??index_min_lt(t,e+116,8),this.size=index_min_mn(h?.size??a?.size??index_min_lt(t,e+124,12)),this.mtime=h?.mtime??a?.mtime??Wi(t,e+136,12),this.cksum=index_min_lt(t,e+148,12),a&&this.#i(a,!0),h&&this.#i(h),index_min_ne(n)&&(this.#t=n||"0"),this.#t==="0"&&this.path.slice(-1)==="/"&&(this.#t="5"),this.#t==="5"&&(this.size=0),this.linkpath=index_min_xt(t,e+157,100),t.subarray(e+257,e+265).toString()==="ustar\x0000")if(this.uname=h?.uname??a?.uname??index_min_xt(t,e+265,32),this.gname=h?.gname??a?.gname??index_min_xt(t,e+297,32),this.devmaj=h?.devmaj??a?.devmaj??index_min_lt(t,e+329,8)??0,this.devmin=h?.devmin??a?.devmin??index_min_lt(t,e+337,8)??0,t[e+475]!==0){let c=index_min_xt(t,e+345,155);this.path=c+"/"+this.path}else{let c=index_min_xt(t,e+345,130);c&&(this.path=c+"/"+this.path),this.atime=i?.atime??r?.atime??Wi(t,e+476,12),this.ctime=i?.ctime??r?.ctime??Wi(t,e+488,12)}let l=256;for(let c=e;c<e+148;c++)l+=t[c];for(let c=e+156;c<e+512;c++)l+=t[c];this.cksumValid=l===this.cksum,this.cksum===void 0&&l===256&&(this.nullBlock=!0)}#i(t,e=!1){Object.assign(this,Object.fromEntries(Object.entries(t).filter(([i,r])=>!(r==null||i==="size"&&Number(r)<0||i==="path"&&e||i==="linkpath"&&e||i==="global"))))}encode(t,e=0){if(t||(t=this.block=Buffer.alloc(512)),this.#t==="Unsupported"&&(this.#t="0"),!(t.length>=e+512))throw new Error("need 512 bytes for header");let i=this.ctime||this.atime?130:155,r=index_min_un(this.path||"",i),n=r[0],o=r[1];this.needPax=!!r[2],this.needPax=index_min_Lt(t,e,100,n)||this.needPax,this.needPax=index_min_ct(t,e+100,8,this.mode)||this.needPax,this.needPax=index_min_ct(t,e+108,8,this.uid)||this.needPax,this.needPax=index_min_ct(t,e+116,8,this.gid)||this.needPax,this.needPax=index_min_ct(t,e+124,12,this.size)||this.needPax,this.needPax=Gi(t,e+136,12,this.mtime)||this.needPax,t[e+156]=Number(this.#t.codePointAt(0)),this.needPax=index_min_Lt(t,e+157,100,this.linkpath)||this.needPax,t.write("ustar\x0000",e+257,8),this.needPax=index_min_Lt(t,e+265,32,this.uname)||this.needPax,this.needPax=index_min_Lt(t,e+297,32,this.gname)||this.needPax,this.needPax=index_min_ct(t,e+329,8,this.devmaj)||this.needPax,this.needPax=index_min_ct(t,e+337,8,this.devmin)||this.needPax,this.needPax=index_min_Lt(t,e+345,i,o)||this.needPax,t[e+475]!==0?this.needPax=index_min_Lt(t,e+345,155,o)||this.needPax:(this.needPax=index_min_Lt(t,e+345,130,o)||this.needPax,this.needPax=Gi(t,e+476,12,this.atime)||this.needPax,this.needPax=Gi(t,e+488,12,this.ctime)||this.needPax);let h=256;for(let a=e;a<e+148;a++)h+=t[a];for(let a=e+156;a<e+512;a++)h+=t[a];return this.cksum=h,index_min_ct(t,e+148,8,this.cksum),this.cksumValid=!0,this.needPax}get type(){return this.#t==="Unsupported"?this.#t:index_min_oe.get(this.#t)}get typeKey(){return this.#t}set type(t){let e=String(index_min_$e.get(t));if(index_min_ne(e)||e==="Unsupported")this.#t=e;else if(index_min_ne(t))this.#t=t;else throw new TypeError("invalid entry type: "+t)}},index_min_un=(s,t)=>{let i=s,r="",n,o=external_node_path_namespaceObject.posix.parse(s).root||".";if(Buffer.byteLength(i)<100)n=[i,r,!1];else{r=external_node_path_namespaceObject.posix.dirname(i),i=external_node_path_namespaceObject.posix.basename(i);do Buffer.byteLength(i)<=100&&Buffer.byteLength(r)<=t?n=[i,r,!1]:Buffer.byteLength(i)>100&&Buffer.byteLength(r)<=t?n=[i.slice(0,99),r,!0]:(i=external_node_path_namespaceObject.posix.join(external_node_path_namespaceObject.posix.basename(r),i),r=external_node_path_namespaceObject.posix.dirname(r));while(r!==o&&n===void 0);n||(n=[s.slice(0,99),"",!0])}return n},index_min_xt=(s,t,e)=>s.subarray(t,t+e).toString("utf8").replace(/\0.*/,""),Wi=(s,t,e)=>index_min_pn(index_min_lt(s,t,e)),index_min_pn=s=>s===void 0?void 0:new Date(s*1e3),index_min_lt=(s,t,e)=>Number(s[t])&128?index_min_Hs(s.subarray(t,t+e)):index_min_wn(s,t,e),index_min_En=s=>isNaN(s)?void 0:s,index_min_wn=(s,t,e)=>index_min_En(parseInt(s.subarray(t,t+e).toString("utf8").replace(/\0.*$/,"").trim(),8)),index_min_Sn={12:8589934591,8:2097151},index_min_ct=(s,t,e,i)=>i===void 0?!1:i>index_min_Sn[e]||i<0?(index_min_Us(i,s.subarray(t,t+e)),!0):(index_min_yn(s,t,e,i),!1),index_min_yn=(s,t,e,i)=>s.write(index_min_Rn(i,e),t,e,"ascii"),index_min_Rn=(s,t)=>index_min_gn(Math.floor(s).toString(8),t),index_min_gn=(s,t)=>(s.length===t-1?s:new Array(t-s.length-1).join("0")+s+" ")+"\0",Gi=(s,t,e,i)=>i===void 0?!1:index_min_ct(s,t,e,i.getTime()/1e3),index_min_bn=new Array(156).join("\0"),index_min_Lt=(s,t,e,i)=>i===void 0?!1:(s.write(i+index_min_bn,t,e,"utf8"),i.length!==Buffer.byteLength(i)||i.length>e);var index_min_On=/^(?:0|[1-9]\d*)$/,index_min_ft=class s{atime;mtime;ctime;charset;comment;gid;uid;gname;uname;linkpath;dev;ino;nlink;path;size;mode;global;constructor(t,e=!1){this.atime=t.atime,this.charset=t.charset,this.comment=t.comment,this.ctime=t.ctime,this.dev=t.dev,this.gid=t.gid,this.global=e,this.gname=t.gname,this.ino=t.ino,this.linkpath=t.linkpath,this.mtime=t.mtime,this.nlink=t.nlink,this.path=t.path,this.size=t.size,this.uid=t.uid,this.uname=t.uname}encode(){let t=this.encodeBody();if(t==="")return Buffer.allocUnsafe(0);let e=Buffer.byteLength(t),i=512*Math.ceil(1+e/512),r=Buffer.allocUnsafe(i);for(let n=0;n<512;n++)r[n]=0;new index_min_F({path:("PaxHeader/"+(0,external_node_path_namespaceObject.basename)(this.path??"")).slice(0,99),mode:this.mode||420,uid:this.uid,gid:this.gid,size:e,mtime:this.mtime,type:this.global?"GlobalExtendedHeader":"ExtendedHeader",linkpath:"",uname:this.uname||"",gname:this.gname||"",devmaj:0,devmin:0,atime:this.atime,ctime:this.ctime}).encode(r),r.write(t,512,e,"utf8");for(let n=e+512;n<r.length;n++)r[n]=0;return r}encodeBody(){return this.encodeField("path")+this.encodeField("ctime")+this.encodeField("atime")+this.encodeField("dev")+this.encodeField("ino")+this.encodeField("nlink")+this.encodeField("charset")+this.encodeField("comment")+this.encodeField("gid")+this.encodeField("gname")+this.encodeField("linkpath")+this.encodeField("mtime")+this.encodeField("size")+this.encodeField("uid")+this.encodeField("uname")}encodeField(t){if(this[t]===void 0)return"";let e=this[t],i=e instanceof Date?e.getTime()/1e3:e,r=" "+(t==="dev"||t==="ino"||t==="nlink"?"SCHILY.":"")+t+"="+i+`
`,n=Buffer.byteLength(r),o=Math.floor(Math.log(n)/Math.log(10))+1;return n+o>=Math.pow(10,o)&&(o+=1),o+n+r}static parse(t,e,i=!1){return new s(index_min_Tn(index_min_xn(t),e),i)}},index_min_Tn=(s,t)=>t?Object.assign({},t,s):s,index_min_xn=s=>s.replace(/\n$/,"").split(`
`).reduce(index_min_Ln,Object.create(null)),index_min_Ln=(s,t)=>{let e=parseInt(t,10);if(e!==Buffer.byteLength(t)+1)return s;t=t.slice((e+" ").length);let i=t.split("="),r=i.shift();if(!r)return s;let n=r.replace(/^SCHILY\.(dev|ino|nlink)/,"$1"),o=i.join("=").replace(/\0.*/,"");switch(n){case"path":case"linkpath":case"type":case"charset":case"comment":case"gname":case"uname":s[n]=o;break;case"ctime":case"atime":case"mtime":s[n]=new Date(Number(o)*1e3);break;case"size":if(!index_min_On.test(o.trim()))break;let h=+o;if(!Number.isSafeInteger(h))break;s[n]=h;break;case"gid":case"uid":case"dev":case"ino":case"nlink":case"mode":s[n]=+o;break}return s};var index_min_Dn=process.env.TESTING_TAR_FAKE_PLATFORM||process.platform,index_min_f=index_min_Dn!=="win32"?s=>String(s):s=>String(s).replaceAll(/\\/g,"/");var index_min_Ve=class extends index_min_A{extended;globalExtended;header;startBlockSize;blockRemain;remain;type;meta=!1;ignore=!1;path;mode;uid;gid;uname;gname;size=0;mtime;atime;ctime;linkpath;dev;ino;nlink;invalid=!1;absolute;unsupported=!1;constructor(t,e,i){switch(super({}),this.pause(),this.extended=e,this.globalExtended=i,this.header=t,this.remain=t.size??0,this.startBlockSize=512*Math.ceil(this.remain/512),this.blockRemain=this.startBlockSize,this.type=t.type,this.type){case"File":case"OldFile":case"Link":case"SymbolicLink":case"CharacterDevice":case"BlockDevice":case"Directory":case"FIFO":case"ContiguousFile":case"GNUDumpDir":break;case"NextFileHasLongLinkpath":case"NextFileHasLongPath":case"OldGnuLongPath":case"GlobalExtendedHeader":case"ExtendedHeader":case"OldExtendedHeader":this.meta=!0;break;default:this.ignore=!0}if(!t.path)throw new Error("no path provided for tar.ReadEntry");this.path=index_min_f(t.path),this.mode=t.mode,this.mode&&(this.mode=this.mode&4095),this.uid=t.uid,this.gid=t.gid,this.uname=t.uname,this.gname=t.gname,this.size=this.remain,this.mtime=t.mtime,this.atime=t.atime,this.ctime=t.ctime,this.linkpath=t.linkpath?index_min_f(t.linkpath):void 0,this.uname=t.uname,this.gname=t.gname,e&&this.#t(e),i&&this.#t(i,!0)}write(t){let e=t.length;if(e>this.blockRemain)throw new Error("writing more to entry than is appropriate");let i=this.remain,r=this.blockRemain;return this.remain=Math.max(0,i-e),this.blockRemain=Math.max(0,r-e),this.ignore?!0:i>=e?super.write(t):super.write(t.subarray(0,i))}#t(t,e=!1){t.path&&(t.path=index_min_f(t.path)),t.linkpath&&(t.linkpath=index_min_f(t.linkpath)),Object.assign(this,Object.fromEntries(Object.entries(t).filter(([i,r])=>!(r==null||i==="path"&&e))))}};var index_min_Dt=(s,t,e,i={})=>{s.file&&(i.file=s.file),s.cwd&&(i.cwd=s.cwd),i.code=e instanceof Error&&e.code||t,i.tarCode=t,!s.strict&&i.recoverable!==!1?(e instanceof Error&&(i=Object.assign(e,i),e=e.message),s.emit("warn",t,e,i)):e instanceof Error?s.emit("error",Object.assign(e,i)):s.emit("error",Object.assign(new Error(`${t}: ${e}`),i))};var index_min_An=1024*1024,Xi=Buffer.from([31,139]),qi=Buffer.from([40,181,47,253]),index_min_In=Math.max(Xi.length,qi.length),index_min_B=Symbol("state"),index_min_Nt=Symbol("writeEntry"),it=Symbol("readEntry"),Zi=Symbol("nextEntry"),index_min_Zs=Symbol("processEntry"),index_min_$=Symbol("extendedHeader"),index_min_he=Symbol("globalExtendedHeader"),index_min_dt=Symbol("meta"),index_min_Ys=Symbol("emitMeta"),index_min_p=Symbol("buffer"),index_min_st=Symbol("queue"),index_min_mt=Symbol("ended"),Yi=Symbol("emittedEnd"),index_min_At=Symbol("emit"),index_min_w=Symbol("unzip"),index_min_Xe=Symbol("consumeChunk"),index_min_qe=Symbol("consumeChunkSub"),Ki=Symbol("consumeBody"),index_min_Ks=Symbol("consumeMeta"),index_min_$s=Symbol("consumeHeader"),index_min_ae=Symbol("consuming"),$i=Symbol("bufferConcat"),index_min_Qe=Symbol("maybeEnd"),index_min_Yt=Symbol("writing"),index_min_V=Symbol("aborted"),index_min_Je=Symbol("onDone"),index_min_It=Symbol("sawValidEntry"),index_min_je=Symbol("sawNullBlock"),ti=Symbol("sawEOF"),index_min_Vs=Symbol("closeStream"),index_min_Cn=1e3,index_min_le=Symbol("compressedBytesRead"),Vi=Symbol("decompressedBytesRead"),index_min_Xs=Symbol("checkDecompressionRatio"),index_min_Fn=()=>!0,rt=class extends external_events_namespaceObject.EventEmitter{file;strict;maxMetaEntrySize;filter;brotli;zstd;maxDecompressionRatio;writable=!0;readable=!1;[index_min_st]=[];[index_min_p];[it];[index_min_Nt];[index_min_B]="begin";[index_min_dt]="";[index_min_$];[index_min_he];[index_min_mt]=!1;[index_min_w];[index_min_V]=!1;[index_min_It];[index_min_je]=!1;[ti]=!1;[index_min_Yt]=!1;[index_min_ae]=!1;[Yi]=!1;[index_min_le]=0;[Vi]=0;constructor(t={}){super(),this.file=t.file||"",this.on(index_min_Je,()=>{(this[index_min_B]==="begin"||this[index_min_It]===!1)&&this.warn("TAR_BAD_ARCHIVE","Unrecognized archive format")}),t.ondone?this.on(index_min_Je,t.ondone):this.on(index_min_Je,()=>{this.emit("prefinish"),this.emit("finish"),this.emit("end")}),this.strict=!!t.strict,this.maxDecompressionRatio=typeof t.maxDecompressionRatio=="number"?t.maxDecompressionRatio:index_min_Cn,this.maxMetaEntrySize=t.maxMetaEntrySize||index_min_An,this.filter=typeof t.filter=="function"?t.filter:index_min_Fn;let e=t.file&&(t.file.endsWith(".tar.br")||t.file.endsWith(".tbr"));this.brotli=!(t.gzip||t.zstd)&&t.brotli!==void 0?t.brotli:e?void 0:!1;let i=t.file&&(t.file.endsWith(".tar.zst")||t.file.endsWith(".tzst"));this.zstd=!(t.gzip||t.brotli)&&t.zstd!==void 0?t.zstd:i?!0:void 0,this.on("end",()=>this[index_min_Vs]()),typeof t.onwarn=="function"&&this.on("warn",t.onwarn),typeof t.onReadEntry=="function"&&this.on("entry",t.onReadEntry)}warn(t,e,i={}){index_min_Dt(this,t,e,i)}[index_min_$s](t,e){this[index_min_It]===void 0&&(this[index_min_It]=!1);let i;try{i=new index_min_F(t,e,this[index_min_$],this[index_min_he])}catch(r){return this.warn("TAR_ENTRY_INVALID",r)}if(i.nullBlock)this[index_min_je]?(this[ti]=!0,this[index_min_B]==="begin"&&(this[index_min_B]="header"),this[index_min_At]("eof")):(this[index_min_je]=!0,this[index_min_At]("nullBlock"));else if(this[index_min_je]=!1,!i.cksumValid)this.warn("TAR_ENTRY_INVALID","checksum failure",{header:i});else if(!i.path)this.warn("TAR_ENTRY_INVALID","path is required",{header:i});else{let r=i.type;if(/^(Symbolic)?Link$/.test(r)&&!i.linkpath)this.warn("TAR_ENTRY_INVALID","linkpath required",{header:i});else if(!/^(Symbolic)?Link$/.test(r)&&!/^(Global)?ExtendedHeader$/.test(r)&&i.linkpath)this.warn("TAR_ENTRY_INVALID","linkpath forbidden",{header:i});else{let n=this[index_min_Nt]=new index_min_Ve(i,this[index_min_$],this[index_min_he]);if(!this[index_min_It])if(n.remain){let o=()=>{n.invalid||(this[index_min_It]=!0)};n.on("end",o)}else this[index_min_It]=!0;n.meta?n.size>this.maxMetaEntrySize?(n.ignore=!0,this[index_min_At]("ignoredEntry",n),this[index_min_B]="ignore",n.resume()):n.size>0&&(this[index_min_dt]="",n.on("data",o=>this[index_min_dt]+=o),this[index_min_B]="meta"):(this[index_min_$]=void 0,n.ignore=n.ignore||!this.filter(n.path,n),n.ignore?(this[index_min_At]("ignoredEntry",n),this[index_min_B]=n.remain?"ignore":"header",n.resume()):(n.remain?this[index_min_B]="body":(this[index_min_B]="header",n.end()),this[it]?this[index_min_st].push(n):(this[index_min_st].push(n),this[Zi]())))}}}[index_min_Vs](){queueMicrotask(()=>this.emit("close"))}[index_min_Zs](t){let e=!0;if(!t)this[it]=void 0,e=!1;else if(Array.isArray(t)){let[i,...r]=t;this.emit(i,...r)}else this[it]=t,this.emit("entry",t),t.emittedEnd||(t.on("end",()=>this[Zi]()),e=!1);return e}[Zi](){do;while(this[index_min_Zs](this[index_min_st].shift()));if(this[index_min_st].length===0){let t=this[it];!t||t.flowing||t.size===t.remain?this[index_min_Yt]||this.emit("drain"):t.once("drain",()=>this.emit("drain"))}}[Ki](t,e){let i=this[index_min_Nt];if(!i)throw new Error("attempt to consume body without entry??");let r=i.blockRemain??0,n=r>=t.length&&e===0?t:t.subarray(e,e+r);return i.write(n),i.blockRemain||(this[index_min_B]="header",this[index_min_Nt]=void 0,i.end()),n.length}[index_min_Ks](t,e){let i=this[index_min_Nt],r=this[Ki](t,e);return!this[index_min_Nt]&&i&&this[index_min_Ys](i),r}[index_min_At](t,e,i){this[index_min_st].length===0&&!this[it]?this.emit(t,e,i):this[index_min_st].push([t,e,i])}[index_min_Ys](t){switch(this[index_min_At]("meta",this[index_min_dt]),t.type){case"ExtendedHeader":case"OldExtendedHeader":this[index_min_$]=index_min_ft.parse(this[index_min_dt],this[index_min_$],!1);break;case"GlobalExtendedHeader":this[index_min_he]=index_min_ft.parse(this[index_min_dt],this[index_min_he],!0);break;case"NextFileHasLongPath":case"OldGnuLongPath":{let e=this[index_min_$]??Object.create(null);this[index_min_$]=e,e.path=this[index_min_dt].replace(/\0.*/,"");break}case"NextFileHasLongLinkpath":{let e=this[index_min_$]||Object.create(null);this[index_min_$]=e,e.linkpath=this[index_min_dt].replace(/\0.*/,"");break}default:throw new Error("unknown meta: "+t.type)}}abort(t){if(!this[index_min_V]){if(this[index_min_w]){let e=this[index_min_w];e.write=()=>!0,e.end=()=>e,e.emit=()=>!1,e.destroy?.()}this[index_min_V]=!0,this.emit("abort",t),this.warn("TAR_ABORT",t,{recoverable:!1})}}[index_min_Xs](t){this[Vi]+=t.length;let e=this[Vi]/this[index_min_le];return e>this.maxDecompressionRatio?(this.abort(new Error(`max decompression ratio exceeded: ${e.toFixed(2)} > ${this.maxDecompressionRatio}`)),!1):!0}write(t,e,i){if(typeof e=="function"&&(i=e,e=void 0),typeof t=="string"&&(t=Buffer.from(t,typeof e=="string"?e:"utf8")),this[index_min_V])return i?.(),!1;if((this[index_min_w]===void 0||this.brotli===void 0&&this[index_min_w]===!1)&&t){if(this[index_min_p]&&(t=Buffer.concat([this[index_min_p],t]),this[index_min_p]=void 0),t.length<index_min_In)return this[index_min_p]=t,i?.(),!0;for(let a=0;this[index_min_w]===void 0&&a<Xi.length;a++)t[a]!==Xi[a]&&(this[index_min_w]=!1);let o=!1;if(this[index_min_w]===!1&&this.zstd!==!1){o=!0;for(let a=0;a<qi.length;a++)if(t[a]!==qi[a]){o=!1;break}}let h=this.brotli===void 0&&!o;if(this[index_min_w]===!1&&h)if(t.length<512)if(this[index_min_mt])this.brotli=!0;else return this[index_min_p]=t,i?.(),!0;else try{new index_min_F(t.subarray(0,512)),this.brotli=!1}catch{this.brotli=!0}if(this[index_min_w]===void 0||this[index_min_w]===!1&&(this.brotli||o)){let a=this[index_min_mt];this[index_min_mt]=!1,this[index_min_w]=this[index_min_w]===void 0?new index_min_Ue({}):o?new index_min_Ke({}):new index_min_Ge({}),this[index_min_w].on("data",c=>{this[index_min_Xs](c)&&this[index_min_Xe](c)}),this[index_min_w].on("error",c=>{this[index_min_V]||this.abort(c)}),this[index_min_w].on("end",()=>{this[index_min_mt]=!0,this[index_min_Xe]()}),this[index_min_Yt]=!0,this[index_min_le]+=t.length;let l=!!this[index_min_w][a?"end":"write"](t);return this[index_min_Yt]=!1,i?.(),l}}this[index_min_Yt]=!0,this[index_min_w]?(this[index_min_le]+=t.length,this[index_min_w].write(t)):this[index_min_Xe](t),this[index_min_Yt]=!1;let n=this[index_min_st].length>0?!1:this[it]?this[it].flowing:!0;return!n&&this[index_min_st].length===0&&this[it]?.once("drain",()=>this.emit("drain")),i?.(),n}[$i](t){t&&!this[index_min_V]&&(this[index_min_p]=this[index_min_p]?Buffer.concat([this[index_min_p],t]):t)}[index_min_Qe](){if(this[index_min_mt]&&!this[Yi]&&!this[index_min_V]&&!this[index_min_ae]){this[Yi]=!0;let t=this[index_min_Nt];if(t?.blockRemain){let e=this[index_min_p]?this[index_min_p].length:0;this.warn("TAR_BAD_ARCHIVE",`Truncated input (needed ${t.blockRemain} more bytes, only ${e} available)`,{entry:t}),this[index_min_p]&&t.write(this[index_min_p]),t.end()}this[index_min_At](index_min_Je)}}[index_min_Xe](t){if(this[index_min_ae]&&t)this[$i](t);else if(!t&&!this[index_min_p])this[index_min_Qe]();else if(t){if(this[index_min_ae]=!0,this[index_min_p]){this[$i](t);let e=this[index_min_p];this[index_min_p]=void 0,this[index_min_qe](e)}else this[index_min_qe](t);for(;this[index_min_p]&&this[index_min_p]?.length>=512&&!this[index_min_V]&&!this[ti];){let e=this[index_min_p];this[index_min_p]=void 0,this[index_min_qe](e)}this[index_min_ae]=!1}(!this[index_min_p]||this[index_min_mt])&&this[index_min_Qe]()}[index_min_qe](t){let e=0,i=t.length;for(;e+512<=i&&!this[index_min_V]&&!this[ti];)switch(this[index_min_B]){case"begin":case"header":this[index_min_$s](t,e),e+=512;break;case"ignore":case"body":e+=this[Ki](t,e);break;case"meta":e+=this[index_min_Ks](t,e);break;default:throw new Error("invalid state: "+this[index_min_B])}e<i&&(this[index_min_p]=this[index_min_p]?Buffer.concat([t.subarray(e),this[index_min_p]]):t.subarray(e))}end(t,e,i){return typeof t=="function"&&(i=t,e=void 0,t=void 0),typeof e=="function"&&(i=e,e=void 0),typeof t=="string"&&(t=Buffer.from(t,e)),i&&this.once("finish",i),this[index_min_V]||(this[index_min_w]?(t&&(this[index_min_le]+=t.length,this[index_min_w].write(t)),this[index_min_w].end()):(this[index_min_mt]=!0,(this.brotli===void 0||this.zstd===void 0)&&(t=t||Buffer.alloc(0)),t&&this.write(t),this[index_min_Qe]())),this}};var index_min_ut=s=>{let t=s.length-1,e=-1;for(;t>-1&&s.charAt(t)==="/";)e=t,t--;return e===-1?s:s.slice(0,e)};var index_min_vn=s=>{let t=s.onReadEntry;s.onReadEntry=t?e=>{t(e),e.resume()}:e=>e.resume()},Qi=(s,t)=>{let e=new Map(t.map(o=>[index_min_ut(o),!0])),i=s.filter,r=100,n=(o,h="",a=0)=>{if(a>=r)return e.set(o,!1),!1;let l=h||(0,external_path_namespaceObject.parse)(o).root||".",c;if(o===l)c=!1;else{let d=e.get(o);c=d!==void 0?d:n((0,external_path_namespaceObject.dirname)(o),l,a+1)}return e.set(o,c),c};s.filter=i?(o,h)=>i(o,h)&&n(index_min_ut(o)):o=>n(index_min_ut(o))},index_min_Bn=s=>{let t=new rt(s),e=s.file,i;try{i=external_node_fs_namespaceObject.openSync(e,"r");let r=external_node_fs_namespaceObject.fstatSync(i),n=s.maxReadSize||16*1024*1024;if(r.size<n){let o=Buffer.allocUnsafe(r.size),h=external_node_fs_namespaceObject.readSync(i,o,0,r.size,0);t.end(h===o.byteLength?o:o.subarray(0,h))}else{let o=0,h=Buffer.allocUnsafe(n);for(;o<r.size;){let a=external_node_fs_namespaceObject.readSync(i,h,0,n,o);if(a===0)break;o+=a,t.write(h.subarray(0,a))}t.end()}}finally{if(typeof i=="number")try{external_node_fs_namespaceObject.closeSync(i)}catch{}}},index_min_Pn=(s,t)=>{let e=new rt(s),i=s.maxReadSize||16*1024*1024,r=s.file;return new Promise((o,h)=>{e.on("error",h),e.on("end",o),external_node_fs_namespaceObject.stat(r,(a,l)=>{if(a)h(a);else{let c=new index_min_t(r,{readSize:i,size:l.size});c.on("error",h),c.pipe(e)}})})},index_min_Ct=index_min_K(index_min_Bn,index_min_Pn,s=>new rt(s),s=>new rt(s),(s,t)=>{t?.length&&Qi(s,t),s.noResume||index_min_vn(s)});var Ji=(s,t,e)=>(s&=4095,e&&(s=(s|384)&-19),t&&(s&256&&(s|=64),s&32&&(s|=8),s&4&&(s|=1)),s);var{isAbsolute:index_min_Un,parse:index_min_qs}=external_node_path_namespaceObject.win32,index_min_ce=s=>{let t="",e=index_min_qs(s);for(;index_min_Un(s)||e.root;){let i=s.charAt(0)==="/"&&s.slice(0,4)!=="//?/"?"/":e.root;s=s.slice(i.length),t+=i,e=index_min_qs(s)}return[t,s]};var ei=["|","<",">","?",":"],ji=ei.map(s=>String.fromCodePoint(61440+Number(s.codePointAt(0)))),index_min_Hn=new Map(ei.map((s,t)=>[s,ji[t]])),index_min_Wn=new Map(ji.map((s,t)=>[s,ei[t]])),index_min_ts=s=>ei.reduce((t,e)=>t.split(e).join(index_min_Hn.get(e)),s),index_min_Qs=s=>ji.reduce((t,e)=>t.split(e).join(index_min_Wn.get(e)),s);var index_min_rr=(s,t)=>t?(s=index_min_f(s).replace(/^\.(\/|$)/,""),index_min_ut(t)+"/"+s):index_min_f(s),index_min_Gn=16*1024*1024,index_min_tr=Symbol("process"),index_min_er=Symbol("file"),index_min_ir=Symbol("directory"),index_min_is=Symbol("symlink"),index_min_sr=Symbol("hardlink"),index_min_fe=Symbol("header"),ii=Symbol("read"),index_min_ss=Symbol("lstat"),si=Symbol("onlstat"),index_min_rs=Symbol("onread"),index_min_ns=Symbol("onreadlink"),index_min_os=Symbol("openfile"),index_min_hs=Symbol("onopenfile"),index_min_pt=Symbol("close"),ri=Symbol("mode"),index_min_as=Symbol("awaitDrain"),index_min_es=Symbol("ondrain"),index_min_q=Symbol("prefix"),index_min_de=class extends index_min_A{path;portable;myuid=process.getuid&&process.getuid()||0;myuser=process.env.USER||"";maxReadSize;linkCache;statCache;preservePaths;cwd;strict;mtime;noPax;noMtime;prefix;fd;blockLen=0;blockRemain=0;buf;pos=0;remain=0;length=0;offset=0;win32;absolute;header;type;linkpath;stat;onWriteEntry;#t=!1;constructor(t,e={}){let i=index_min_se(e);super(),this.path=index_min_f(t),this.portable=!!i.portable,this.maxReadSize=i.maxReadSize||index_min_Gn,this.linkCache=i.linkCache||new Map,this.statCache=i.statCache||new Map,this.preservePaths=!!i.preservePaths,this.cwd=index_min_f(i.cwd||process.cwd()),this.strict=!!i.strict,this.noPax=!!i.noPax,this.noMtime=!!i.noMtime,this.mtime=i.mtime,this.prefix=i.prefix?index_min_f(i.prefix):void 0,this.onWriteEntry=i.onWriteEntry,typeof i.onwarn=="function"&&this.on("warn",i.onwarn);let r=!1;if(!this.preservePaths){let[o,h]=index_min_ce(this.path);o&&typeof h=="string"&&(this.path=h,r=o)}this.win32=!!i.win32||process.platform==="win32",this.win32&&(this.path=index_min_Qs(this.path.replaceAll(/\\/g,"/")),t=t.replaceAll(/\\/g,"/")),this.absolute=index_min_f(i.absolute||external_path_namespaceObject.resolve(this.cwd,t)),this.path===""&&(this.path="./"),r&&this.warn("TAR_ENTRY_INFO",`stripping ${r} from absolute path`,{entry:this,path:r+this.path});let n=this.statCache.get(this.absolute);n?this[si](n):this[index_min_ss]()}warn(t,e,i={}){return index_min_Dt(this,t,e,i)}emit(t,...e){return t==="error"&&(this.#t=!0),super.emit(t,...e)}[index_min_ss](){external_fs_.lstat(this.absolute,(t,e)=>{if(t)return this.emit("error",t);this[si](e)})}[si](t){this.statCache.set(this.absolute,t),this.stat=t,t.isFile()||(t.size=0),this.type=index_min_Zn(t),this.emit("stat",t),this[index_min_tr]()}[index_min_tr](){switch(this.type){case"File":return this[index_min_er]();case"Directory":return this[index_min_ir]();case"SymbolicLink":return this[index_min_is]();default:return this.end()}}[ri](t){return Ji(t,this.type==="Directory",this.portable)}[index_min_q](t){return index_min_rr(t,this.prefix)}[index_min_fe](){if(!this.stat)throw new Error("cannot write header before stat");this.type==="Directory"&&this.portable&&(this.noMtime=!0),this.onWriteEntry?.(this),this.header=new index_min_F({path:this[index_min_q](this.path),linkpath:this.type==="Link"&&this.linkpath!==void 0?this[index_min_q](this.linkpath):this.linkpath,mode:this[ri](this.stat.mode),uid:this.portable?void 0:this.stat.uid,gid:this.portable?void 0:this.stat.gid,size:this.stat.size,mtime:this.noMtime?void 0:this.mtime||this.stat.mtime,type:this.type==="Unsupported"?void 0:this.type,uname:this.portable?void 0:this.stat.uid===this.myuid?this.myuser:"",atime:this.portable?void 0:this.stat.atime,ctime:this.portable?void 0:this.stat.ctime}),this.header.encode()&&!this.noPax&&super.write(new index_min_ft({atime:this.portable?void 0:this.header.atime,ctime:this.portable?void 0:this.header.ctime,gid:this.portable?void 0:this.header.gid,mtime:this.noMtime?void 0:this.mtime||this.header.mtime,path:this[index_min_q](this.path),linkpath:this.type==="Link"&&this.linkpath!==void 0?this[index_min_q](this.linkpath):this.linkpath,size:this.header.size,uid:this.portable?void 0:this.header.uid,uname:this.portable?void 0:this.header.uname,dev:this.portable?void 0:this.stat.dev,ino:this.portable?void 0:this.stat.ino,nlink:this.portable?void 0:this.stat.nlink}).encode());let t=this.header?.block;if(!t)throw new Error("failed to encode header");super.write(t)}[index_min_ir](){if(!this.stat)throw new Error("cannot create directory entry without stat");this.path.slice(-1)!=="/"&&(this.path+="/"),this.stat.size=0,this[index_min_fe](),this.end()}[index_min_is](){external_fs_.readlink(this.absolute,(t,e)=>{if(t)return this.emit("error",t);this[index_min_ns](e)})}[index_min_ns](t){this.linkpath=index_min_f(t),this[index_min_fe](),this.end()}[index_min_sr](t){if(!this.stat)throw new Error("cannot create link entry without stat");this.type="Link",this.linkpath=index_min_f(external_path_namespaceObject.relative(this.cwd,t)),this.stat.size=0,this[index_min_fe](),this.end()}[index_min_er](){if(!this.stat)throw new Error("cannot create file entry without stat");if(this.stat.nlink>1){let t=`${this.stat.dev}:${this.stat.ino}`,e=this.linkCache.get(t);if(e?.indexOf(this.cwd)===0)return this[index_min_sr](e);this.linkCache.set(t,this.absolute)}if(this[index_min_fe](),this.stat.size===0)return this.end();this[index_min_os]()}[index_min_os](){external_fs_.open(this.absolute,"r",(t,e)=>{if(t)return this.emit("error",t);this[index_min_hs](e)})}[index_min_hs](t){if(this.fd=t,this.#t)return this[index_min_pt]();if(!this.stat)throw new Error("should stat before calling onopenfile");this.blockLen=512*Math.ceil(this.stat.size/512),this.blockRemain=this.blockLen;let e=Math.min(this.blockLen,this.maxReadSize);this.buf=Buffer.allocUnsafe(e),this.offset=0,this.pos=0,this.remain=this.stat.size,this.length=this.buf.length,this[ii]()}[ii](){let{fd:t,buf:e,offset:i,length:r,pos:n}=this;if(t===void 0||e===void 0)throw new Error("cannot read file without first opening");external_fs_.read(t,e,i,r,n,(o,h)=>{if(o)return this[index_min_pt](()=>this.emit("error",o));this[index_min_rs](h)})}[index_min_pt](t=()=>{}){this.fd!==void 0&&external_fs_.close(this.fd,t)}[index_min_rs](t){if(t<=0&&this.remain>0){let r=Object.assign(new Error("encountered unexpected EOF"),{path:this.absolute,syscall:"read",code:"EOF"});return this[index_min_pt](()=>this.emit("error",r))}if(t>this.remain){let r=Object.assign(new Error("did not encounter expected EOF"),{path:this.absolute,syscall:"read",code:"EOF"});return this[index_min_pt](()=>this.emit("error",r))}if(!this.buf)throw new Error("should have created buffer prior to reading");if(t===this.remain)for(let r=t;r<this.length&&t<this.blockRemain;r++)this.buf[r+this.offset]=0,t++,this.remain++;let e=this.offset===0&&t===this.buf.length?this.buf:this.buf.subarray(this.offset,this.offset+t);this.write(e)?this[index_min_es]():this[index_min_as](()=>this[index_min_es]())}[index_min_as](t){this.once("drain",t)}write(t,e,i){if(typeof e=="function"&&(i=e,e=void 0),typeof t=="string"&&(t=Buffer.from(t,typeof e=="string"?e:"utf8")),this.blockRemain<t.length){let r=Object.assign(new Error("writing more data than expected"),{path:this.absolute});return this.emit("error",r)}return this.remain-=t.length,this.blockRemain-=t.length,this.pos+=t.length,this.offset+=t.length,super.write(t,null,i)}[index_min_es](){if(!this.remain)return this.blockRemain&&super.write(Buffer.alloc(this.blockRemain)),this[index_min_pt](t=>t?this.emit("error",t):this.end());if(!this.buf)throw new Error("buffer lost somehow in ONDRAIN");this.offset>=this.length&&(this.buf=Buffer.allocUnsafe(Math.min(this.blockRemain,this.buf.length)),this.offset=0),this.length=this.buf.length-this.offset,this[ii]()}},ni=class extends index_min_de{sync=!0;[index_min_ss](){this[si](external_fs_.lstatSync(this.absolute))}[index_min_is](){this[index_min_ns](external_fs_.readlinkSync(this.absolute))}[index_min_os](){this[index_min_hs](external_fs_.openSync(this.absolute,"r"))}[ii](){let t=!0;try{let{fd:e,buf:i,offset:r,length:n,pos:o}=this;if(e===void 0||i===void 0)throw new Error("fd and buf must be set in READ method");let h=external_fs_.readSync(e,i,r,n,o);this[index_min_rs](h),t=!1}finally{if(t)try{this[index_min_pt](()=>{})}catch{}}}[index_min_as](t){t()}[index_min_pt](t=()=>{}){this.fd!==void 0&&external_fs_.closeSync(this.fd),t()}},oi=class extends index_min_A{blockLen=0;blockRemain=0;buf=0;pos=0;remain=0;length=0;preservePaths;portable;strict;noPax;noMtime;readEntry;type;prefix;path;mode;uid;gid;uname;gname;header;mtime;atime;ctime;linkpath;size;onWriteEntry;warn(t,e,i={}){return index_min_Dt(this,t,e,i)}constructor(t,e={}){let i=index_min_se(e);super(),this.preservePaths=!!i.preservePaths,this.portable=!!i.portable,this.strict=!!i.strict,this.noPax=!!i.noPax,this.noMtime=!!i.noMtime,this.onWriteEntry=i.onWriteEntry,this.readEntry=t;let{type:r}=t;if(r==="Unsupported")throw new Error("writing entry that should be ignored");this.type=r,this.type==="Directory"&&this.portable&&(this.noMtime=!0),this.prefix=i.prefix,this.path=index_min_f(t.path),this.mode=t.mode!==void 0?this[ri](t.mode):void 0,this.uid=this.portable?void 0:t.uid,this.gid=this.portable?void 0:t.gid,this.uname=this.portable?void 0:t.uname,this.gname=this.portable?void 0:t.gname,this.size=t.size,this.mtime=this.noMtime?void 0:i.mtime||t.mtime,this.atime=this.portable?void 0:t.atime,this.ctime=this.portable?void 0:t.ctime,this.linkpath=t.linkpath!==void 0?index_min_f(t.linkpath):void 0,typeof i.onwarn=="function"&&this.on("warn",i.onwarn);let n=!1;if(!this.preservePaths){let[h,a]=index_min_ce(this.path);h&&typeof a=="string"&&(this.path=a,n=h)}this.remain=t.size,this.blockRemain=t.startBlockSize,this.onWriteEntry?.(this),this.header=new index_min_F({path:this[index_min_q](this.path),linkpath:this.type==="Link"&&this.linkpath!==void 0?this[index_min_q](this.linkpath):this.linkpath,mode:this.mode,uid:this.portable?void 0:this.uid,gid:this.portable?void 0:this.gid,size:this.size,mtime:this.noMtime?void 0:this.mtime,type:this.type,uname:this.portable?void 0:this.uname,atime:this.portable?void 0:this.atime,ctime:this.portable?void 0:this.ctime}),n&&this.warn("TAR_ENTRY_INFO",`stripping ${n} from absolute path`,{entry:this,path:n+this.path}),this.header.encode()&&!this.noPax&&super.write(new index_min_ft({atime:this.portable?void 0:this.atime,ctime:this.portable?void 0:this.ctime,gid:this.portable?void 0:this.gid,mtime:this.noMtime?void 0:this.mtime,path:this[index_min_q](this.path),linkpath:this.type==="Link"&&this.linkpath!==void 0?this[index_min_q](this.linkpath):this.linkpath,size:this.size,uid:this.portable?void 0:this.uid,uname:this.portable?void 0:this.uname,dev:this.portable?void 0:this.readEntry.dev,ino:this.portable?void 0:this.readEntry.ino,nlink:this.portable?void 0:this.readEntry.nlink}).encode());let o=this.header?.block;if(!o)throw new Error("failed to encode header");super.write(o),t.pipe(this)}[index_min_q](t){return index_min_rr(t,this.prefix)}[ri](t){return Ji(t,this.type==="Directory",this.portable)}write(t,e,i){typeof e=="function"&&(i=e,e=void 0),typeof t=="string"&&(t=Buffer.from(t,typeof e=="string"?e:"utf8"));let r=t.length;if(r>this.blockRemain)throw new Error("writing more to entry than is appropriate");return this.blockRemain-=r,super.write(t,i)}end(t,e,i){return this.blockRemain&&super.write(Buffer.alloc(this.blockRemain)),typeof t=="function"&&(i=t,e=void 0,t=void 0),typeof e=="function"&&(i=e,e=void 0),typeof t=="string"&&(t=Buffer.from(t,e??"utf8")),i&&this.once("finish",i),t?super.end(t,i):super.end(i),this}},index_min_Zn=s=>s.isFile()?"File":s.isDirectory()?"Directory":s.isSymbolicLink()?"SymbolicLink":"Unsupported";var hi=class s{tail;head;length=0;static create(t=[]){return new s(t)}constructor(t=[]){for(let e of t)this.push(e)}*[Symbol.iterator](){for(let t=this.head;t;t=t.next)yield t.value}removeNode(t){if(t.list!==this)throw new Error("removing node which does not belong to this list");let e=t.next,i=t.prev;return e&&(e.prev=i),i&&(i.next=e),t===this.head&&(this.head=e),t===this.tail&&(this.tail=i),this.length--,t.next=void 0,t.prev=void 0,t.list=void 0,e}unshiftNode(t){if(t===this.head)return;t.list&&t.list.removeNode(t);let e=this.head;t.list=this,t.next=e,e&&(e.prev=t),this.head=t,this.tail||(this.tail=t),this.length++}pushNode(t){if(t===this.tail)return;t.list&&t.list.removeNode(t);let e=this.tail;t.list=this,t.prev=e,e&&(e.next=t),this.tail=t,this.head||(this.head=t),this.length++}push(...t){for(let e=0,i=t.length;e<i;e++)index_min_Kn(this,t[e]);return this.length}unshift(...t){for(var e=0,i=t.length;e<i;e++)index_min_$n(this,t[e]);return this.length}pop(){if(!this.tail)return;let t=this.tail.value,e=this.tail;return this.tail=this.tail.prev,this.tail?this.tail.next=void 0:this.head=void 0,e.list=void 0,this.length--,t}shift(){if(!this.head)return;let t=this.head.value,e=this.head;return this.head=this.head.next,this.head?this.head.prev=void 0:this.tail=void 0,e.list=void 0,this.length--,t}forEach(t,e){e=e||this;for(let i=this.head,r=0;i;r++)t.call(e,i.value,r,this),i=i.next}forEachReverse(t,e){e=e||this;for(let i=this.tail,r=this.length-1;i;r--)t.call(e,i.value,r,this),i=i.prev}get(t){let e=0,i=this.head;for(;i&&e<t;e++)i=i.next;if(e===t&&i)return i.value}getReverse(t){let e=0,i=this.tail;for(;i&&e<t;e++)i=i.prev;if(e===t&&i)return i.value}map(t,e){e=e||this;let i=new s;for(let r=this.head;r;)i.push(t.call(e,r.value,this)),r=r.next;return i}mapReverse(t,e){e=e||this;var i=new s;for(let r=this.tail;r;)i.push(t.call(e,r.value,this)),r=r.prev;return i}reduce(t,e){let i,r=this.head;if(arguments.length>1)i=e;else if(this.head)r=this.head.next,i=this.head.value;else throw new TypeError("Reduce of empty list with no initial value");for(var n=0;r;n++)i=t(i,r.value,n),r=r.next;return i}reduceReverse(t,e){let i,r=this.tail;if(arguments.length>1)i=e;else if(this.tail)r=this.tail.prev,i=this.tail.value;else throw new TypeError("Reduce of empty list with no initial value");for(let n=this.length-1;r;n--)i=t(i,r.value,n),r=r.prev;return i}toArray(){let t=new Array(this.length);for(let e=0,i=this.head;i;e++)t[e]=i.value,i=i.next;return t}toArrayReverse(){let t=new Array(this.length);for(let e=0,i=this.tail;i;e++)t[e]=i.value,i=i.prev;return t}slice(t=0,e=this.length){e<0&&(e+=this.length),t<0&&(t+=this.length);let i=new s;if(e<t||e<0)return i;t<0&&(t=0),e>this.length&&(e=this.length);let r=this.head,n=0;for(n=0;r&&n<t;n++)r=r.next;for(;r&&n<e;n++,r=r.next)i.push(r.value);return i}sliceReverse(t=0,e=this.length){e<0&&(e+=this.length),t<0&&(t+=this.length);let i=new s;if(e<t||e<0)return i;t<0&&(t=0),e>this.length&&(e=this.length);let r=this.length,n=this.tail;for(;n&&r>e;r--)n=n.prev;for(;n&&r>t;r--,n=n.prev)i.push(n.value);return i}splice(t,e=0,...i){t>this.length&&(t=this.length-1),t<0&&(t=this.length+t);let r=this.head;for(let o=0;r&&o<t;o++)r=r.next;let n=[];for(let o=0;r&&o<e;o++)n.push(r.value),r=this.removeNode(r);r?r!==this.tail&&(r=r.prev):r=this.tail;for(let o of i)r=index_min_Yn(this,r,o);return n}reverse(){let t=this.head,e=this.tail;for(let i=t;i;i=i.prev){let r=i.prev;i.prev=i.next,i.next=r}return this.head=e,this.tail=t,this}};function index_min_Yn(s,t,e){let i=t,r=t?t.next:s.head,n=new index_min_me(e,i,r,s);return n.next===void 0&&(s.tail=n),n.prev===void 0&&(s.head=n),s.length++,n}function index_min_Kn(s,t){s.tail=new index_min_me(t,s.tail,void 0,s),s.head||(s.head=s.tail),s.length++}function index_min_$n(s,t){s.head=new index_min_me(t,void 0,s.head,s),s.tail||(s.tail=s.head),s.length++}var index_min_me=class{list;next;prev;value;constructor(t,e,i,r){this.list=r,this.value=t,e?(e.next=this,this.prev=e):this.prev=void 0,i?(i.prev=this,this.next=i):this.next=void 0}};var pi=class{path;absolute;entry;stat;readdir;pending=!1;pendingLink=!1;ignore=!1;piped=!1;constructor(t,e){this.path=t||"./",this.absolute=e}},index_min_nr=Buffer.alloc(1024),li=Symbol("onStat"),index_min_ue=Symbol("ended"),index_min_W=Symbol("queue"),index_min_pe=Symbol("pendingLinks"),index_min_Et=Symbol("current"),index_min_Ft=Symbol("process"),Ee=Symbol("processing"),ai=Symbol("processJob"),index_min_G=Symbol("jobs"),index_min_ls=Symbol("jobDone"),ci=Symbol("addFSEntry"),index_min_or=Symbol("addTarEntry"),index_min_ds=Symbol("stat"),index_min_ms=Symbol("readdir"),fi=Symbol("onreaddir"),di=Symbol("pipe"),index_min_hr=Symbol("entry"),index_min_cs=Symbol("entryOpt"),mi=Symbol("writeEntryClass"),index_min_lr=Symbol("write"),index_min_fs=Symbol("ondrain"),index_min_wt=class extends index_min_A{sync=!1;opt;cwd;maxReadSize;preservePaths;strict;noPax;prefix;linkCache;statCache;file;portable;zip;readdirCache;noDirRecurse;follow;noMtime;mtime;filter;jobs;[mi];onWriteEntry;[index_min_W];[index_min_pe]=new Map;[index_min_G]=0;[Ee]=!1;[index_min_ue]=!1;constructor(t={}){if(super(),this.opt=t,this.file=t.file||"",this.cwd=t.cwd||process.cwd(),this.maxReadSize=t.maxReadSize,this.preservePaths=!!t.preservePaths,this.strict=!!t.strict,this.noPax=!!t.noPax,this.prefix=index_min_f(t.prefix||""),this.linkCache=t.linkCache||new Map,this.statCache=t.statCache||new Map,this.readdirCache=t.readdirCache||new Map,this.onWriteEntry=t.onWriteEntry,this[mi]=index_min_de,typeof t.onwarn=="function"&&this.on("warn",t.onwarn),this.portable=!!t.portable,t.gzip||t.brotli||t.zstd){if((t.gzip?1:0)+(t.brotli?1:0)+(t.zstd?1:0)>1)throw new TypeError("gzip, brotli, zstd are mutually exclusive");if(t.gzip&&(typeof t.gzip!="object"&&(t.gzip={}),this.portable&&(t.gzip.portable=!0),this.zip=new index_min_ze(t.gzip)),t.brotli&&(typeof t.brotli!="object"&&(t.brotli={}),this.zip=new index_min_We(t.brotli)),t.zstd&&(typeof t.zstd!="object"&&(t.zstd={}),this.zip=new index_min_Ye(t.zstd)),!this.zip)throw new Error("impossible");let e=this.zip;e.on("data",i=>super.write(i)),e.on("end",()=>super.end()),e.on("drain",()=>this[index_min_fs]()),this.on("resume",()=>e.resume())}else this.on("drain",this[index_min_fs]);this.noDirRecurse=!!t.noDirRecurse,this.follow=!!t.follow,this.noMtime=!!t.noMtime,t.mtime&&(this.mtime=t.mtime),this.filter=typeof t.filter=="function"?t.filter:()=>!0,this[index_min_W]=new hi,this[index_min_G]=0,this.jobs=Number(t.jobs)||4,this[Ee]=!1,this[index_min_ue]=!1}[index_min_lr](t){return super.write(t)}add(t){return this.write(t),this}end(t,e,i){return typeof t=="function"&&(i=t,t=void 0),typeof e=="function"&&(i=e,e=void 0),t&&this.add(t),this[index_min_ue]=!0,this[index_min_Ft](),i&&i(),this}write(t){if(this[index_min_ue])throw new Error("write after end");return typeof t=="string"?this[ci](t):this[index_min_or](t),this.flowing}[index_min_or](t){let e=index_min_f(external_path_namespaceObject.resolve(this.cwd,t.path));if(!this.filter(t.path,t))t.resume();else{let i=new pi(t.path,e);i.entry=new oi(t,this[index_min_cs](i)),i.entry.on("end",()=>this[index_min_ls](i)),this[index_min_G]+=1,this[index_min_W].push(i)}this[index_min_Ft]()}[ci](t){let e=index_min_f(external_path_namespaceObject.resolve(this.cwd,t));this[index_min_W].push(new pi(t,e)),this[index_min_Ft]()}[index_min_ds](t){t.pending=!0,this[index_min_G]+=1;let e=this.follow?"stat":"lstat";external_fs_[e](t.absolute,(i,r)=>{t.pending=!1,this[index_min_G]-=1,i?this.emit("error",i):this[li](t,r)})}[li](t,e){if(this.statCache.set(t.absolute,e),t.stat=e,!this.filter(t.path,e))t.ignore=!0;else if(e.isFile()&&e.nlink>1&&!this.linkCache.get(`${e.dev}:${e.ino}`)&&!this.sync)if(t===this[index_min_Et])this[ai](t);else{let i=`${e.dev}:${e.ino}`,r=this[index_min_pe].get(i);r?r.push(t):this[index_min_pe].set(i,[t]),t.pendingLink=!0,t.pending=!0}this[index_min_Ft]()}[index_min_ms](t){t.pending=!0,this[index_min_G]+=1,external_fs_.readdir(t.absolute,(e,i)=>{if(t.pending=!1,this[index_min_G]-=1,e)return this.emit("error",e);this[fi](t,i)})}[fi](t,e){this.readdirCache.set(t.absolute,e),t.readdir=e,this[index_min_Ft]()}[index_min_Ft](){if(!this[Ee]){this[Ee]=!0;for(let t=this[index_min_W].head;t&&this[index_min_G]<this.jobs;t=t.next)if(this[ai](t.value),t.value.ignore){let e=t.next;this[index_min_W].removeNode(t),t.next=e}this[Ee]=!1,this[index_min_ue]&&this[index_min_W].length===0&&this[index_min_G]===0&&(this.zip?this.zip.end(index_min_nr):(super.write(index_min_nr),super.end()))}}get[index_min_Et](){return this[index_min_W]&&this[index_min_W].head&&this[index_min_W].head.value}[index_min_ls](t){this[index_min_W].shift(),this[index_min_G]-=1;let{stat:e}=t;if(e&&e.isFile()&&e.nlink>1){let i=`${e.dev}:${e.ino}`,r=this[index_min_pe].get(i);if(r){this[index_min_pe].delete(i);for(let n of r)n.pending=!1,this[ai](n)}}this[index_min_Ft]()}[ai](t){if(t.pending&&t.pendingLink&&t===this[index_min_Et]&&(t.pending=!1,t.pendingLink=!1),!t.pending){if(t.entry){t===this[index_min_Et]&&!t.piped&&this[di](t);return}if(!t.stat){let e=this.statCache.get(t.absolute);e?this[li](t,e):this[index_min_ds](t)}if(t.stat&&!t.ignore){if(!this.noDirRecurse&&t.stat.isDirectory()&&!t.readdir){let e=this.readdirCache.get(t.absolute);if(e?this[fi](t,e):this[index_min_ms](t),!t.readdir)return}if(t.entry=this[index_min_hr](t),!t.entry){t.ignore=!0;return}t===this[index_min_Et]&&!t.piped&&this[di](t)}}}[index_min_cs](t){return{onwarn:(e,i,r)=>this.warn(e,i,r),noPax:this.noPax,cwd:this.cwd,absolute:t.absolute,preservePaths:this.preservePaths,maxReadSize:this.maxReadSize,strict:this.strict,portable:this.portable,linkCache:this.linkCache,statCache:this.statCache,noMtime:this.noMtime,mtime:this.mtime,prefix:this.prefix,onWriteEntry:this.onWriteEntry}}[index_min_hr](t){this[index_min_G]+=1;try{return new this[mi](t.path,this[index_min_cs](t)).on("end",()=>this[index_min_ls](t)).on("error",i=>this.emit("error",i))}catch(e){this.emit("error",e)}}[index_min_fs](){this[index_min_Et]&&this[index_min_Et].entry&&this[index_min_Et].entry.resume()}[di](t){t.piped=!0,t.readdir&&t.readdir.forEach(r=>{let n=t.path,o=n==="./"?"":n.replace(/\/*$/,"/");this[ci](o+r)});let e=t.entry,i=this.zip;if(!e)throw new Error("cannot pipe without source");i?e.on("data",r=>{i.write(r)||e.pause()}):e.on("data",r=>{super.write(r)||e.pause()})}pause(){return this.zip&&this.zip.pause(),super.pause()}warn(t,e,i={}){index_min_Dt(this,t,e,i)}},index_min_kt=class extends index_min_wt{sync=!0;constructor(t){super(t),this[mi]=ni}pause(){}resume(){}[index_min_ds](t){let e=this.follow?"statSync":"lstatSync";this[li](t,external_fs_[e](t.absolute))}[index_min_ms](t){this[fi](t,external_fs_.readdirSync(t.absolute))}[di](t){let e=t.entry,i=this.zip;if(t.readdir&&t.readdir.forEach(r=>{let n=t.path,o=n==="./"?"":n.replace(/\/*$/,"/");this[ci](o+r)}),!e)throw new Error("Cannot pipe without source");i?e.on("data",r=>{i.write(r)}):e.on("data",r=>{super[index_min_lr](r)})}};var index_min_Vn=(s,t)=>{let e=new index_min_kt(s),i=new index_min_Wt(s.file,{mode:s.mode||438});e.pipe(i),index_min_fr(e,t)},index_min_Xn=(s,t)=>{let e=new index_min_wt(s),i=new index_min_et(s.file,{mode:s.mode||438});e.pipe(i);let r=new Promise((n,o)=>{i.on("error",o),i.on("close",n),e.on("error",o)});return index_min_dr(e,t).catch(n=>e.emit("error",n)),r},index_min_fr=(s,t)=>{t.forEach(e=>{e.charAt(0)==="@"?index_min_Ct({file:external_node_path_namespaceObject.resolve(s.cwd,e.slice(1)),sync:!0,noResume:!0,onReadEntry:i=>s.add(i)}):s.add(e)}),s.end()},index_min_dr=async(s,t)=>{for(let e of t)e.charAt(0)==="@"?await index_min_Ct({file:external_node_path_namespaceObject.resolve(String(s.cwd),e.slice(1)),noResume:!0,onReadEntry:i=>{s.add(i)}}):s.add(e);s.end()},index_min_qn=(s,t)=>{let e=new index_min_kt(s);return index_min_fr(e,t),e},index_min_Qn=(s,t)=>{let e=new index_min_wt(s);return index_min_dr(e,t).catch(i=>e.emit("error",i)),e},index_min_Jn=index_min_K(index_min_Vn,index_min_Xn,index_min_qn,index_min_Qn,(s,t)=>{if(!t?.length)throw new TypeError("no paths specified to add to archive")});var index_min_jn=process.env.__FAKE_PLATFORM__||process.platform,index_min_Er=index_min_jn==="win32",{O_CREAT:index_min_wr,O_NOFOLLOW:index_min_mr,O_TRUNC:index_min_Sr,O_WRONLY:index_min_yr}=external_fs_.constants,index_min_Rr=Number(process.env.__FAKE_FS_O_FILENAME__)||external_fs_.constants.UV_FS_O_FILEMAP||0,index_min_to=index_min_Er&&!!index_min_Rr,index_min_eo=512*1024,index_min_io=index_min_Rr|index_min_Sr|index_min_wr|index_min_yr,index_min_ur=!index_min_Er&&typeof index_min_mr=="number"?index_min_mr|index_min_Sr|index_min_wr|index_min_yr:null,index_min_us=index_min_ur!==null?()=>index_min_ur:index_min_to?s=>s<index_min_eo?index_min_io:"w":()=>"w";var index_min_ps=(s,t,e)=>{try{return external_node_fs_namespaceObject.lchownSync(s,t,e)}catch(i){if(i?.code!=="ENOENT")throw i}},Ei=(s,t,e,i)=>{external_node_fs_namespaceObject.lchown(s,t,e,r=>{i(r&&r?.code!=="ENOENT"?r:null)})},index_min_so=(s,t,e,i,r)=>{if(t.isDirectory())index_min_Es(external_node_path_namespaceObject.resolve(s,t.name),e,i,n=>{if(n)return r(n);let o=external_node_path_namespaceObject.resolve(s,t.name);Ei(o,e,i,r)});else{let n=external_node_path_namespaceObject.resolve(s,t.name);Ei(n,e,i,r)}},index_min_Es=(s,t,e,i)=>{external_node_fs_namespaceObject.readdir(s,{withFileTypes:!0},(r,n)=>{if(r){if(r.code==="ENOENT")return i();if(r.code!=="ENOTDIR"&&r.code!=="ENOTSUP")return i(r)}if(r||!n.length)return Ei(s,t,e,i);let o=n.length,h=null,a=l=>{if(!h){if(l)return i(h=l);if(--o===0)return Ei(s,t,e,i)}};for(let l of n)index_min_so(s,l,t,e,a)})},index_min_ro=(s,t,e,i)=>{t.isDirectory()&&index_min_ws(external_node_path_namespaceObject.resolve(s,t.name),e,i),index_min_ps(external_node_path_namespaceObject.resolve(s,t.name),e,i)},index_min_ws=(s,t,e)=>{let i;try{i=external_node_fs_namespaceObject.readdirSync(s,{withFileTypes:!0})}catch(r){let n=r;if(n?.code==="ENOENT")return;if(n?.code==="ENOTDIR"||n?.code==="ENOTSUP")return index_min_ps(s,t,e);throw n}for(let r of i)index_min_ro(s,r,t,e);return index_min_ps(s,t,e)};var Se=class extends Error{path;code;syscall="chdir";constructor(t,e){super(`${e}: Cannot cd into '${t}'`),this.path=t,this.code=e}get name(){return"CwdError"}};var index_min_St=class extends Error{path;symlink;syscall="symlink";code="TAR_SYMLINK_ERROR";constructor(t,e){super("TAR_SYMLINK_ERROR: Cannot extract through symbolic link"),this.symlink=t,this.path=e}get name(){return"SymlinkError"}};var index_min_oo=(s,t)=>{external_node_fs_namespaceObject.stat(s,(e,i)=>{(e||!i.isDirectory())&&(e=new Se(s,e?.code||"ENOTDIR")),t(e)})},index_min_gr=(s,t,e)=>{s=index_min_f(s);let i=t.umask??18,r=t.mode|448,n=(r&i)!==0,o=t.uid,h=t.gid,a=typeof o=="number"&&typeof h=="number"&&(o!==t.processUid||h!==t.processGid),l=t.preserve,c=t.unlink,d=index_min_f(t.cwd),y=(E,x)=>{E?e(E):x&&a?index_min_Es(x,o,h,Le=>y(Le)):n?external_node_fs_namespaceObject.chmod(s,r,e):e()};if(s===d)return index_min_oo(s,y);if(l)return promises_namespaceObject.mkdir(s,{mode:r,recursive:!0}).then(E=>y(null,E??void 0),y);let D=index_min_f(external_node_path_namespaceObject.relative(d,s)).split("/");index_min_Ss(d,D,r,c,d,void 0,y)},index_min_Ss=(s,t,e,i,r,n,o)=>{if(t.length===0)return o(null,n);let h=t.shift(),a=index_min_f(external_node_path_namespaceObject.resolve(s+"/"+h));external_node_fs_namespaceObject.mkdir(a,e,index_min_br(a,t,e,i,r,n,o))},index_min_br=(s,t,e,i,r,n,o)=>h=>{h?external_node_fs_namespaceObject.lstat(s,(a,l)=>{if(a)a.path=a.path&&index_min_f(a.path),o(a);else if(l.isDirectory())index_min_Ss(s,t,e,i,r,n,o);else if(i)external_node_fs_namespaceObject.unlink(s,c=>{if(c)return o(c);external_node_fs_namespaceObject.mkdir(s,e,index_min_br(s,t,e,i,r,n,o))});else{if(l.isSymbolicLink())return o(new index_min_St(s,s+"/"+t.join("/")));o(h)}}):(n=n||s,index_min_Ss(s,t,e,i,r,n,o))},ho=s=>{let t=!1,e;try{t=external_node_fs_namespaceObject.statSync(s).isDirectory()}catch(i){e=i?.code}finally{if(!t)throw new Se(s,e??"ENOTDIR")}},index_min_r=(s,t)=>{s=index_min_f(s);let e=t.umask??18,i=t.mode|448,r=(i&e)!==0,n=t.uid,o=t.gid,h=typeof n=="number"&&typeof o=="number"&&(n!==t.processUid||o!==t.processGid),a=t.preserve,l=t.unlink,c=index_min_f(t.cwd),d=E=>{E&&h&&index_min_ws(E,n,o),r&&external_node_fs_namespaceObject.chmodSync(s,i)};if(s===c)return ho(c),d();if(a)return d(external_node_fs_namespaceObject.mkdirSync(s,{mode:i,recursive:!0})??void 0);let T=index_min_f(external_node_path_namespaceObject.relative(c,s)).split("/"),D;for(let E=T.shift(),x=c;E&&(x+="/"+E);E=T.shift()){x=index_min_f(external_node_path_namespaceObject.resolve(x));try{external_node_fs_namespaceObject.mkdirSync(x,i),D=D||x}catch{let Le=external_node_fs_namespaceObject.lstatSync(x);if(Le.isDirectory())continue;if(l){external_node_fs_namespaceObject.unlinkSync(x),external_node_fs_namespaceObject.mkdirSync(x,i),D=D||x;continue}else if(Le.isSymbolicLink())return new index_min_St(x,x+"/"+T.join("/"))}}return d(D)};var index_min_ys=Object.create(null),index_min_Or=1e4,index_min_$t=new Set,index_min_Tr=s=>{index_min_$t.has(s)?index_min_$t.delete(s):index_min_ys[s]=s.normalize("NFD").toLocaleLowerCase("en").toLocaleUpperCase("en"),index_min_$t.add(s);let t=index_min_ys[s],e=index_min_$t.size-index_min_Or;if(e>index_min_Or/10){for(let i of index_min_$t)if(index_min_$t.delete(i),delete index_min_ys[i],--e<=0)break}return t};var index_min_ao=process.env.TESTING_TAR_FAKE_PLATFORM||process.platform,lo=index_min_ao==="win32",co=s=>s.split("/").slice(0,-1).reduce((e,i)=>{let r=e.at(-1);return r!==void 0&&(i=(0,external_node_path_namespaceObject.join)(r,i)),e.push(i||"/"),e},[]),yi=class{#t=new Map;#i=new Map;#s=new Set;reserve(t,e){t=lo?["win32 parallelization disabled"]:t.map(r=>index_min_ut((0,external_node_path_namespaceObject.join)(index_min_Tr(r))));let i=new Set(t.map(r=>co(r)).reduce((r,n)=>r.concat(n)));this.#i.set(e,{dirs:i,paths:t});for(let r of t){let n=this.#t.get(r);n?n.push(e):this.#t.set(r,[e])}for(let r of i){let n=this.#t.get(r);if(!n)this.#t.set(r,[new Set([e])]);else{let o=n.at(-1);o instanceof Set?o.add(e):n.push(new Set([e]))}}return this.#r(e)}#n(t){let e=this.#i.get(t);if(!e)throw new Error("function does not have any path reservations");return{paths:e.paths.map(i=>this.#t.get(i)),dirs:[...e.dirs].map(i=>this.#t.get(i))}}check(t){let{paths:e,dirs:i}=this.#n(t);return e.every(r=>r&&r[0]===t)&&i.every(r=>r&&r[0]instanceof Set&&r[0].has(t))}#r(t){return this.#s.has(t)||!this.check(t)?!1:(this.#s.add(t),t(()=>this.#e(t)),!0)}#e(t){if(!this.#s.has(t))return!1;let e=this.#i.get(t);if(!e)throw new Error("invalid reservation");let{paths:i,dirs:r}=e,n=new Set;for(let o of i){let h=this.#t.get(o);if(!h||h?.[0]!==t)continue;let a=h[1];if(!a){this.#t.delete(o);continue}if(h.shift(),typeof a=="function")n.add(a);else for(let l of a)n.add(l)}for(let o of r){let h=this.#t.get(o),a=h?.[0];if(!(!h||!(a instanceof Set)))if(a.size===1&&h.length===1){this.#t.delete(o);continue}else if(a.size===1){h.shift();let l=h[0];typeof l=="function"&&n.add(l)}else a.delete(t)}return this.#s.delete(t),n.forEach(o=>this.#r(o)),!0}};var index_min_Lr=()=>process.umask();var index_min_Dr=Symbol("onEntry"),index_min_s=Symbol("checkFs"),index_min_Nr=Symbol("checkFs2"),index_min_Os=Symbol("isReusable"),index_min_P=Symbol("makeFs"),index_min_Ts=Symbol("file"),index_min_xs=Symbol("directory"),gi=Symbol("link"),index_min_Ar=Symbol("symlink"),index_min_Ir=Symbol("hardlink"),Re=Symbol("ensureNoSymlink"),index_min_Cr=Symbol("unsupported"),index_min_Fr=Symbol("checkPath"),index_min_Rs=Symbol("stripAbsolutePath"),yt=Symbol("mkdir"),index_min_O=Symbol("onError"),Ri=Symbol("pending"),index_min_kr=Symbol("pend"),index_min_Vt=Symbol("unpend"),index_min_gs=Symbol("ended"),index_min_bs=Symbol("maybeClose"),index_min_Ls=Symbol("skip"),index_min_ge=Symbol("doChown"),index_min_be=Symbol("uid"),_e=Symbol("gid"),Oe=Symbol("checkedCwd"),mo=process.env.TESTING_TAR_FAKE_PLATFORM||process.platform,Te=mo==="win32",index_min_uo=1024,po=(s,t)=>{if(!Te)return external_node_fs_namespaceObject.unlink(s,t);let e=s+".DELETE."+(0,external_node_crypto_namespaceObject.randomBytes)(16).toString("hex");external_node_fs_namespaceObject.rename(s,e,i=>{if(i)return t(i);external_node_fs_namespaceObject.unlink(e,t)})},Eo=s=>{if(!Te)return external_node_fs_namespaceObject.unlinkSync(s);let t=s+".DELETE."+(0,external_node_crypto_namespaceObject.randomBytes)(16).toString("hex");external_node_fs_namespaceObject.renameSync(s,t),external_node_fs_namespaceObject.unlinkSync(t)},index_min_Mr=(s,t,e)=>s!==void 0&&s===s>>>0?s:t!==void 0&&t===t>>>0?t:e,index_min_Xt=class extends rt{[index_min_gs]=!1;[Oe]=!1;[Ri]=0;reservations=new yi;transform;writable=!0;readable=!1;uid;gid;setOwner;preserveOwner;processGid;processUid;maxDepth;forceChown;win32;newer;keep;noMtime;preservePaths;unlink;cwd;strip;processUmask;umask;dmode;fmode;chmod;constructor(t={}){if(t.ondone=()=>{this[index_min_gs]=!0,this[index_min_bs]()},super(t),this.transform=t.transform,this.chmod=!!t.chmod,typeof t.uid=="number"||typeof t.gid=="number"){if(typeof t.uid!="number"||typeof t.gid!="number")throw new TypeError("cannot set owner without number uid and gid");if(t.preserveOwner)throw new TypeError("cannot preserve owner in archive and also set owner explicitly");this.uid=t.uid,this.gid=t.gid,this.setOwner=!0}else this.uid=void 0,this.gid=void 0,this.setOwner=!1;this.preserveOwner=t.preserveOwner===void 0&&typeof t.uid!="number"?process.getuid?.()===0:!!t.preserveOwner,this.processUid=(this.preserveOwner||this.setOwner)&&process.getuid?process.getuid():void 0,this.processGid=(this.preserveOwner||this.setOwner)&&process.getgid?process.getgid():void 0,this.maxDepth=typeof t.maxDepth=="number"?t.maxDepth:index_min_uo,this.forceChown=t.forceChown===!0,this.win32=!!t.win32||Te,this.newer=!!t.newer,this.keep=!!t.keep,this.noMtime=!!t.noMtime,this.preservePaths=!!t.preservePaths,this.unlink=!!t.unlink,this.cwd=index_min_f(external_node_path_namespaceObject.resolve(t.cwd||process.cwd())),this.strip=Number(t.strip)||0,this.processUmask=this.chmod?typeof t.processUmask=="number"?t.processUmask:index_min_Lr():0,this.umask=typeof t.umask=="number"?t.umask:this.processUmask,this.dmode=t.dmode||511&~this.umask,this.fmode=t.fmode||438&~this.umask,this.on("entry",e=>this[index_min_Dr](e))}warn(t,e,i={}){return(t==="TAR_BAD_ARCHIVE"||t==="TAR_ABORT")&&(i.recoverable=!1),super.warn(t,e,i)}[index_min_bs](){this[index_min_gs]&&this[Ri]===0&&(this.emit("prefinish"),this.emit("finish"),this.emit("end"))}[index_min_Rs](t,e){let i=t[e],{type:r}=t;if(!i||this.preservePaths)return!0;let[n,o]=index_min_ce(i),h=o.replaceAll(/\\/g,"/").split("/");if(h.includes("..")||Te&&/^[a-z]:\.\.$/i.test(h[0]??"")){if(e==="path"||r==="Link")return this.warn("TAR_ENTRY_ERROR",`${e} contains '..'`,{entry:t,[e]:i}),!1;let a=external_node_path_namespaceObject.posix.dirname(t.path),l=external_node_path_namespaceObject.posix.normalize(external_node_path_namespaceObject.posix.join(a,h.join("/")));if(l.startsWith("../")||l==="..")return this.warn("TAR_ENTRY_ERROR",`${e} escapes extraction directory`,{entry:t,[e]:i}),!1}return n&&(t[e]=String(o),this.warn("TAR_ENTRY_INFO",`stripping ${n} from absolute ${e}`,{entry:t,[e]:i})),!0}[index_min_Fr](t){let e=index_min_f(t.path),i=e.split("/");if(this.strip){if(i.length<this.strip)return!1;if(t.type==="Link"){let r=index_min_f(String(t.linkpath)).split("/");if(r.length>=this.strip)t.linkpath=r.slice(this.strip).join("/");else return!1}i.splice(0,this.strip),t.path=i.join("/")}if(isFinite(this.maxDepth)&&i.length>this.maxDepth)return this.warn("TAR_ENTRY_ERROR","path excessively deep",{entry:t,path:e,depth:i.length,maxDepth:this.maxDepth}),!1;if(!this[index_min_Rs](t,"path")||!this[index_min_Rs](t,"linkpath"))return!1;if(t.absolute=external_node_path_namespaceObject.isAbsolute(t.path)?index_min_f(external_node_path_namespaceObject.resolve(t.path)):index_min_f(external_node_path_namespaceObject.resolve(this.cwd,t.path)),!this.preservePaths&&typeof t.absolute=="string"&&t.absolute.indexOf(this.cwd+"/")!==0&&t.absolute!==this.cwd)return this.warn("TAR_ENTRY_ERROR","path escaped extraction target",{entry:t,path:index_min_f(t.path),resolvedPath:t.absolute,cwd:this.cwd}),!1;if(t.absolute===this.cwd&&t.type!=="Directory"&&t.type!=="GNUDumpDir")return!1;if(this.win32){let{root:r}=external_node_path_namespaceObject.win32.parse(String(t.absolute));t.absolute=r+index_min_ts(String(t.absolute).slice(r.length));let{root:n}=external_node_path_namespaceObject.win32.parse(t.path);t.path=n+index_min_ts(t.path.slice(n.length))}return!0}[index_min_Dr](t){if(!this[index_min_Fr](t))return t.resume();switch(external_node_assert_namespaceObject.equal(typeof t.absolute,"string"),t.type){case"Directory":case"GNUDumpDir":t.mode&&(t.mode=t.mode|448);case"File":case"OldFile":case"ContiguousFile":case"Link":case"SymbolicLink":return this[index_min_s](t);default:return this[index_min_Cr](t)}}[index_min_O](t,e){t.name==="CwdError"?this.emit("error",t):(this.warn("TAR_ENTRY_ERROR",t,{entry:e}),this[index_min_Vt](),e.resume())}[yt](t,e,i){index_min_gr(index_min_f(t),{uid:this.uid,gid:this.gid,processUid:this.processUid,processGid:this.processGid,umask:this.processUmask,preserve:this.preservePaths,unlink:this.unlink,cwd:this.cwd,mode:e},i)}[index_min_ge](t){return this.forceChown||this.preserveOwner&&(typeof t.uid=="number"&&t.uid!==this.processUid||typeof t.gid=="number"&&t.gid!==this.processGid)||typeof this.uid=="number"&&this.uid!==this.processUid||typeof this.gid=="number"&&this.gid!==this.processGid}[index_min_be](t){return index_min_Mr(this.uid,t.uid,this.processUid)}[_e](t){return index_min_Mr(this.gid,t.gid,this.processGid)}[index_min_Ts](t,e){let i=typeof t.mode=="number"?t.mode&4095:this.fmode,r=new index_min_et(String(t.absolute),{flags:index_min_us(t.size),mode:i,autoClose:!1});r.on("error",a=>{r.fd&&external_node_fs_namespaceObject.close(r.fd,()=>{}),r.write=()=>!0,this[index_min_O](a,t),e()});let n=1,o=a=>{if(a){r.fd&&external_node_fs_namespaceObject.close(r.fd,()=>{}),this[index_min_O](a,t),e();return}--n===0&&r.fd!==void 0&&external_node_fs_namespaceObject.close(r.fd,l=>{l?this[index_min_O](l,t):this[index_min_Vt](),e()})};r.on("finish",()=>{let a=String(t.absolute),l=r.fd;if(typeof l=="number"&&t.mtime&&!this.noMtime){n++;let c=t.atime||new Date,d=t.mtime;external_node_fs_namespaceObject.futimes(l,c,d,y=>y?external_node_fs_namespaceObject.utimes(a,c,d,T=>o(T&&y)):o())}if(typeof l=="number"&&this[index_min_ge](t)){n++;let c=this[index_min_be](t),d=this[_e](t);typeof c=="number"&&typeof d=="number"&&external_node_fs_namespaceObject.fchown(l,c,d,y=>y?external_node_fs_namespaceObject.chown(a,c,d,T=>o(T&&y)):o())}o()});let h=this.transform&&this.transform(t)||t;h!==t&&(h.on("error",a=>{this[index_min_O](a,t),e()}),t.pipe(h)),h.pipe(r)}[index_min_xs](t,e){let i=typeof t.mode=="number"?t.mode&4095:this.dmode;this[yt](String(t.absolute),i,r=>{if(r){this[index_min_O](r,t),e();return}let n=1,o=()=>{--n===0&&(e(),this[index_min_Vt](),t.resume())};t.mtime&&!this.noMtime&&(n++,external_node_fs_namespaceObject.utimes(String(t.absolute),t.atime||new Date,t.mtime,o)),this[index_min_ge](t)&&(n++,external_node_fs_namespaceObject.chown(String(t.absolute),Number(this[index_min_be](t)),Number(this[_e](t)),o)),o()})}[index_min_Cr](t){t.unsupported=!0,this.warn("TAR_ENTRY_UNSUPPORTED",`unsupported entry type: ${t.type}`,{entry:t}),t.resume()}[index_min_Ar](t,e){let i=index_min_f(external_node_path_namespaceObject.relative(this.cwd,external_node_path_namespaceObject.resolve(external_node_path_namespaceObject.dirname(String(t.absolute)),String(t.linkpath)))).split("/");this[Re](t,this.cwd,i,()=>this[gi](t,String(t.linkpath),"symlink",e),r=>{this[index_min_O](r,t),e()})}[index_min_Ir](t,e){let i=index_min_f(external_node_path_namespaceObject.resolve(this.cwd,String(t.linkpath))),r=index_min_f(String(t.linkpath)).split("/");this[Re](t,this.cwd,r,()=>this[gi](t,i,"link",e),n=>{this[index_min_O](n,t),e()})}[Re](t,e,i,r,n){let o=i.shift();if(this.preservePaths||o===void 0)return r();let h=external_node_path_namespaceObject.resolve(e,o);external_node_fs_namespaceObject.lstat(h,(a,l)=>{if(a)return r();if(l?.isSymbolicLink())return n(new index_min_St(h,external_node_path_namespaceObject.resolve(h,i.join("/"))));this[Re](t,h,i,r,n)})}[index_min_kr](){this[Ri]++}[index_min_Vt](){this[Ri]--,this[index_min_bs]()}[index_min_Ls](t){this[index_min_Vt](),t.resume()}[index_min_Os](t,e){return t.type==="File"&&!this.unlink&&e.isFile()&&e.nlink<=1&&!Te}[index_min_s](t){this[index_min_kr]();let e=[t.path];t.linkpath&&e.push(t.linkpath),this.reservations.reserve(e,i=>this[index_min_Nr](t,i))}[index_min_Nr](t,e){let i=h=>{e(h)},r=()=>{this[yt](this.cwd,this.dmode,h=>{if(h){this[index_min_O](h,t),i();return}this[Oe]=!0,n()})},n=()=>{if(t.absolute!==this.cwd){let h=index_min_f(external_node_path_namespaceObject.dirname(String(t.absolute)));if(h!==this.cwd)return this[yt](h,this.dmode,a=>{if(a){this[index_min_O](a,t),i();return}o()})}o()},o=()=>{external_node_fs_namespaceObject.lstat(String(t.absolute),(h,a)=>{if(a&&(this.keep||this.newer&&a.mtime>(t.mtime??a.mtime))){this[index_min_Ls](t),i();return}if(h||this[index_min_Os](t,a))return this[index_min_P](null,t,i);if(a.isDirectory()){if(t.type==="Directory"){let l=this.chmod&&t.mode&&(a.mode&4095)!==t.mode,c=d=>this[index_min_P](d??null,t,i);return l?external_node_fs_namespaceObject.chmod(String(t.absolute),Number(t.mode),c):c()}if(t.absolute!==this.cwd)return external_node_fs_namespaceObject.rmdir(String(t.absolute),l=>this[index_min_P](l??null,t,i))}if(t.absolute===this.cwd)return this[index_min_P](null,t,i);po(String(t.absolute),l=>this[index_min_P](l??null,t,i))})};this[Oe]?n():r()}[index_min_P](t,e,i){if(t){this[index_min_O](t,e),i();return}switch(e.type){case"File":case"OldFile":case"ContiguousFile":return this[index_min_Ts](e,i);case"Link":return this[index_min_Ir](e,i);case"SymbolicLink":return this[index_min_Ar](e,i);case"Directory":case"GNUDumpDir":return this[index_min_xs](e,i)}}[gi](t,e,i,r){external_node_fs_namespaceObject[i](e,String(t.absolute),n=>{n?this[index_min_O](n,t):(this[index_min_Vt](),t.resume()),r()})}},index_min_ye=s=>{try{return[null,s()]}catch(t){return[t,null]}},index_min_xe=class extends index_min_Xt{sync=!0;[index_min_P](t,e){return super[index_min_P](t,e,()=>{})}[index_min_s](t){if(!this[Oe]){let n=this[yt](this.cwd,this.dmode);if(n)return this[index_min_O](n,t);this[Oe]=!0}if(t.absolute!==this.cwd){let n=index_min_f(external_node_path_namespaceObject.dirname(String(t.absolute)));if(n!==this.cwd){let o=this[yt](n,this.dmode);if(o)return this[index_min_O](o,t)}}let[e,i]=index_min_ye(()=>external_node_fs_namespaceObject.lstatSync(String(t.absolute)));if(i&&(this.keep||this.newer&&i.mtime>(t.mtime??i.mtime)))return this[index_min_Ls](t);if(e||this[index_min_Os](t,i))return this[index_min_P](null,t);if(i.isDirectory()){if(t.type==="Directory"){let o=this.chmod&&t.mode&&(i.mode&4095)!==t.mode,[h]=o?index_min_ye(()=>{external_node_fs_namespaceObject.chmodSync(String(t.absolute),Number(t.mode))}):[];return this[index_min_P](h,t)}let[n]=index_min_ye(()=>external_node_fs_namespaceObject.rmdirSync(String(t.absolute)));this[index_min_P](n,t)}let[r]=t.absolute===this.cwd?[]:index_min_ye(()=>Eo(String(t.absolute)));this[index_min_P](r,t)}[index_min_Ts](t,e){let i=typeof t.mode=="number"?t.mode&4095:this.fmode,r=h=>{let a;try{external_node_fs_namespaceObject.closeSync(n)}catch(l){a=l}(h||a)&&this[index_min_O](h||a,t),e()},n;try{n=external_node_fs_namespaceObject.openSync(String(t.absolute),index_min_us(t.size),i)}catch(h){return r(h)}let o=this.transform&&this.transform(t)||t;o!==t&&(o.on("error",h=>this[index_min_O](h,t)),t.pipe(o)),o.on("data",h=>{try{external_node_fs_namespaceObject.writeSync(n,h,0,h.length)}catch(a){r(a)}}),o.on("end",()=>{let h=null;if(t.mtime&&!this.noMtime){let a=t.atime||new Date,l=t.mtime;try{external_node_fs_namespaceObject.futimesSync(n,a,l)}catch(c){try{external_node_fs_namespaceObject.utimesSync(String(t.absolute),a,l)}catch{h=c}}}if(this[index_min_ge](t)){let a=this[index_min_be](t),l=this[_e](t);try{external_node_fs_namespaceObject.fchownSync(n,Number(a),Number(l))}catch(c){try{external_node_fs_namespaceObject.chownSync(String(t.absolute),Number(a),Number(l))}catch{h=h||c}}}r(h)})}[index_min_xs](t,e){let i=typeof t.mode=="number"?t.mode&4095:this.dmode,r=this[yt](String(t.absolute),i);if(r){this[index_min_O](r,t),e();return}if(t.mtime&&!this.noMtime)try{external_node_fs_namespaceObject.utimesSync(String(t.absolute),t.atime||new Date,t.mtime)}catch{}if(this[index_min_ge](t))try{external_node_fs_namespaceObject.chownSync(String(t.absolute),Number(this[index_min_be](t)),Number(this[_e](t)))}catch{}e(),t.resume()}[yt](t,e){try{return index_min_r(index_min_f(t),{uid:this.uid,gid:this.gid,processUid:this.processUid,processGid:this.processGid,umask:this.processUmask,preserve:this.preservePaths,unlink:this.unlink,cwd:this.cwd,mode:e})}catch(i){return i}}[Re](t,e,i,r,n){if(this.preservePaths||i.length===0)return r();let o=e;for(let h of i){o=external_node_path_namespaceObject.resolve(o,h);let[a,l]=index_min_ye(()=>external_node_fs_namespaceObject.lstatSync(o));if(a)return r();if(l.isSymbolicLink())return n(new index_min_St(o,external_node_path_namespaceObject.resolve(e,i.join("/"))))}r()}[gi](t,e,i,r){let n=`${i}Sync`;try{external_node_fs_namespaceObject[n](e,String(t.absolute)),r(),t.resume()}catch(o){return this[index_min_O](o,t)}}};var index_min_wo=s=>{let t=new index_min_xe(s),e=s.file,i=external_node_fs_namespaceObject.statSync(e),r=s.maxReadSize||16*1024*1024;new index_min_Be(e,{readSize:r,size:i.size}).pipe(t)},So=(s,t)=>{let e=new index_min_Xt(s),i=s.maxReadSize||16*1024*1024,r=s.file;return new Promise((o,h)=>{e.on("error",h),e.on("close",o),external_node_fs_namespaceObject.stat(r,(a,l)=>{if(a)h(a);else{let c=new index_min_t(r,{readSize:i,size:l.size});c.on("error",h),c.pipe(e)}})})},yo=index_min_K(index_min_wo,So,s=>new index_min_xe(s),s=>new index_min_Xt(s),(s,t)=>{t?.length&&Qi(s,t)});var Ro=(s,t)=>{let e=new index_min_kt(s),i=!0,r,n;try{try{r=external_node_fs_namespaceObject.openSync(s.file,"r+")}catch(a){if(a?.code==="ENOENT")r=external_node_fs_namespaceObject.openSync(s.file,"w+");else throw a}let o=external_node_fs_namespaceObject.fstatSync(r),h=Buffer.alloc(512);t:for(n=0;n<o.size;n+=512){for(let c=0,d=0;c<512;c+=d){if(d=external_node_fs_namespaceObject.readSync(r,h,c,h.length-c,n+c),n===0&&h[0]===31&&h[1]===139)throw new Error("cannot append to compressed archives");if(!d)break t}let a=new index_min_F(h);if(!a.cksumValid)break;let l=512*Math.ceil((a.size||0)/512);if(n+l+512>o.size)break;n+=l,s.mtimeCache&&a.mtime&&s.mtimeCache.set(String(a.path),a.mtime)}i=!1,go(s,e,n,r,t)}finally{if(i)try{external_node_fs_namespaceObject.closeSync(r)}catch{}}},go=(s,t,e,i,r)=>{let n=new index_min_Wt(s.file,{fd:i,start:e});t.pipe(n),_o(t,r)},bo=(s,t)=>{t=Array.from(t);let e=new index_min_wt(s),i=(n,o,h)=>{let a=(T,D)=>{T?external_node_fs_namespaceObject.close(n,E=>h(T)):h(null,D)},l=0;if(o===0)return a(null,0);let c=0,d=Buffer.alloc(512),y=(T,D)=>{if(T||D===void 0)return a(T);if(c+=D,c<512&&D)return external_node_fs_namespaceObject.read(n,d,c,d.length-c,l+c,y);if(l===0&&d[0]===31&&d[1]===139)return a(new Error("cannot append to compressed archives"));if(c<512)return a(null,l);let E=new index_min_F(d);if(!E.cksumValid)return a(null,l);let x=512*Math.ceil((E.size??0)/512);if(l+x+512>o||(l+=x+512,l>=o))return a(null,l);s.mtimeCache&&E.mtime&&s.mtimeCache.set(String(E.path),E.mtime),c=0,external_node_fs_namespaceObject.read(n,d,0,512,l,y)};external_node_fs_namespaceObject.read(n,d,0,512,l,y)};return new Promise((n,o)=>{e.on("error",o);let h="r+",a=(l,c)=>{if(l&&l.code==="ENOENT"&&h==="r+")return h="w+",external_node_fs_namespaceObject.open(s.file,h,a);if(l||!c)return o(l);external_node_fs_namespaceObject.fstat(c,(d,y)=>{if(d)return external_node_fs_namespaceObject.close(c,()=>o(d));i(c,y.size,(T,D)=>{if(T)return o(T);let E=new index_min_et(s.file,{fd:c,start:D});e.pipe(E),E.on("error",o),E.on("close",n),Oo(e,t)})})};external_node_fs_namespaceObject.open(s.file,h,a)})},_o=(s,t)=>{t.forEach(e=>{e.charAt(0)==="@"?index_min_Ct({file:external_node_path_namespaceObject.resolve(s.cwd,e.slice(1)),sync:!0,noResume:!0,onReadEntry:i=>s.add(i)}):s.add(e)}),s.end()},Oo=async(s,t)=>{for(let e of t)e.charAt(0)==="@"?await index_min_Ct({file:external_node_path_namespaceObject.resolve(String(s.cwd),e.slice(1)),noResume:!0,onReadEntry:i=>s.add(i)}):s.add(e);s.end()},index_min_Mt=index_min_K(Ro,bo,()=>{throw new TypeError("file is required")},()=>{throw new TypeError("file is required")},(s,t)=>{if(!index_min_Bs(s))throw new TypeError("file is required");if(s.gzip||s.brotli||s.zstd||s.file.endsWith(".br")||s.file.endsWith(".tbr"))throw new TypeError("cannot append to compressed archives");if(!t?.length)throw new TypeError("no paths specified to add/replace")});var To=index_min_K(index_min_Mt.syncFile,index_min_Mt.asyncFile,index_min_Mt.syncNoFile,index_min_Mt.asyncNoFile,(s,t=[])=>{index_min_Mt.validate?.(s,t),xo(s)}),xo=s=>{let t=s.filter;s.mtimeCache||(s.mtimeCache=new Map),s.filter=t?(e,i)=>t(e,i)&&!((s.mtimeCache?.get(e)??i.mtime??0)>(i.mtime??0)):(e,i)=>!((s.mtimeCache?.get(e)??i.mtime??0)>(i.mtime??0))};
//# sourceMappingURL=index.min.js.map

;// CONCATENATED MODULE: ./src/receipt/tar-write.ts

/**
 * The receipt archive writer, on the `tar` package (node-tar): it encodes the
 * ustar headers and frames the members; this module pins every header field so
 * the same members give the same bytes. The reader is `tar.ts`, our own strict
 * parser (docs/receipts.md says why receipts are not read with `tar`).
 */
const tar_write_BLOCK = 512;
/** tar and Python's tarfile pad an archive to whole 10240-byte records; so do we. */
const RECORD = 20 * tar_write_BLOCK;
/** The largest size a ustar size field holds (11 octal digits). */
const MAX_USTAR_SIZE = 8 ** 11 - 1;
/**
 * A deterministic ustar archive (docs/format.md §3): members in the order given,
 * regular files, mode 0644, uid/gid 0, no user or group names, one mtime for all,
 * no pax headers; two zero blocks and padding to a 10240-byte record.
 * Names are the receipt's own short ASCII forms; anything else is refused rather
 * than written with a pax or prefix header some reader might not expect.
 */
function writeTar(members, mtime) {
    const when = new Date(Math.max(0, Math.floor(mtime)) * 1000);
    const pack = new index_min_kt({ mtime: when, noPax: true, strict: true });
    const chunks = [];
    pack.on('data', (c) => chunks.push(c));
    for (const m of members) {
        if (!/^[\x21-\x7e]{1,100}$/.test(m.name) || m.name.startsWith('/'))
            throw new Error(`tar writer: unsupported member name ${JSON.stringify(m.name)}`);
        if (m.data.length > MAX_USTAR_SIZE)
            throw new Error(`tar writer: member ${m.name} is too large for a ustar header`);
        const header = new index_min_F({
            path: m.name,
            type: 'File',
            mode: 0o644,
            uid: 0,
            gid: 0,
            uname: '',
            gname: '',
            size: m.data.length,
            mtime: when,
        });
        header.encode();
        const entry = new index_min_Ve(header);
        pack.add(entry);
        entry.end(Buffer.from(m.data.buffer, m.data.byteOffset, m.data.length));
    }
    pack.end();
    const body = Buffer.concat(chunks);
    const pad = (RECORD - (body.length % RECORD)) % RECORD;
    return pad === 0 ? body : Buffer.concat([body, Buffer.alloc(pad)]);
}

;// CONCATENATED MODULE: ./src/receipt/verify.ts







const MANIFEST_MEMBER = 'manifest.json';
const SIGNATURE_MEMBER = 'manifest.sig';
const JOURNAL_MEMBER = 'journal/000000.jsonl';
const BLOB_MEMBER = /^blobs\/([0-9a-f]{64})$/;
const ALLOWED_DIRS = new Set(['journal', 'journal/', 'blobs', 'blobs/']);
/** Reads a receipt's bytes (a file name or the bytes themselves), gunzipping with a cap. */
function receiptBytes(input, maxBytes) {
    let bytes;
    if (typeof input === 'string') {
        let st;
        try {
            st = (0,external_node_fs_namespaceObject.statSync)(input);
        }
        catch {
            throw new errors_InputError(`${input}: no such receipt file`);
        }
        if (!st.isFile())
            throw new errors_InputError(`${input}: not a regular file`);
        if (st.size > maxBytes)
            throw new ReceiptFormatError('too_large', `receipt is ${st.size} bytes, over the ${maxBytes}-byte limit`);
        try {
            bytes = (0,external_node_fs_namespaceObject.readFileSync)(input);
        }
        catch (e) {
            throw new errors_InputError(`${input}: cannot read receipt: ${e.code ?? e.message}`);
        }
    }
    else {
        bytes = input;
        if (bytes.length > maxBytes)
            throw new ReceiptFormatError('too_large', `receipt is ${bytes.length} bytes, over the ${maxBytes}-byte limit`);
    }
    return maybeGunzip(bytes, maxBytes);
}
/** Why a member name is not one of the four allowed forms, as a fault. */
function nameFault(e) {
    const n = e.name;
    const quoted = JSON.stringify(n);
    const segments = n.split('/');
    if (n.startsWith('/') || /^[A-Za-z]:/.test(n) || n.includes('\\')) {
        return { kind: 'unsafe_member', message: `absolute or non-portable member name ${quoted}`, member: n };
    }
    if (segments.some((s) => s === '..'))
        return { kind: 'unsafe_member', message: `path traversal in member name ${quoted}`, member: n };
    if (n.includes('\0') || /[\x00-\x1f\x7f]/.test(n))
        return { kind: 'unsafe_member', message: `control characters in member name ${quoted}`, member: n };
    if (e.type === 'directory') {
        return ALLOWED_DIRS.has(n)
            ? undefined
            : { kind: 'unknown_member', message: `unexpected directory ${quoted}`, member: n };
    }
    if (n === MANIFEST_MEMBER || n === SIGNATURE_MEMBER || n === JOURNAL_MEMBER || BLOB_MEMBER.test(n))
        return undefined;
    return {
        kind: 'unknown_member',
        message: `unexpected member ${quoted} (a receipt holds manifest.json, manifest.sig, journal/000000.jsonl and blobs/<sha256>)`,
        member: n,
    };
}
/** Sorts archive entries into the receipt's members; every unsafe, unknown or duplicate member is a fault. */
function classify(entries) {
    const faults = [];
    const seen = new Set();
    const members = { blobs: new Map() };
    for (const e of entries) {
        const f = nameFault(e);
        if (f !== undefined) {
            faults.push(f);
            continue;
        }
        const key = e.type === 'directory' ? e.name.replace(/\/$/, '') + '/' : e.name;
        if (seen.has(key)) {
            // Readers disagree on duplicates (first wins or last wins): refuse rather than pick.
            faults.push({
                kind: 'duplicate_member',
                message: `member ${JSON.stringify(e.name)} appears more than once`,
                member: e.name,
            });
            continue;
        }
        seen.add(key);
        if (e.type === 'directory')
            continue;
        if (e.name === MANIFEST_MEMBER)
            members.manifest = e.data;
        else if (e.name === SIGNATURE_MEMBER)
            members.signature = e.data;
        else if (e.name === JOURNAL_MEMBER)
            members.journal = e.data;
        else
            members.blobs.set(BLOB_MEMBER.exec(e.name)[1], e.data);
    }
    return { members, faults };
}
/**
 * `manifest.sig`: standard base64 (with padding, optionally one trailing
 * newline) of exactly 64 bytes. Throws ReceiptFormatError otherwise.
 */
function decodeSignature(bytes) {
    let text = bytes.toString('latin1');
    if (text.endsWith('\n'))
        text = text.slice(0, -1);
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 !== 0 || text.length === 0) {
        throw new ReceiptFormatError('signature_not_base64', 'manifest.sig is not base64', SIGNATURE_MEMBER);
    }
    const sig = Buffer.from(text, 'base64');
    if (sig.toString('base64') !== text)
        throw new ReceiptFormatError('signature_not_base64', 'manifest.sig is not canonical base64', SIGNATURE_MEMBER);
    if (sig.length !== 64) {
        throw new ReceiptFormatError('signature_wrong_length', `manifest.sig decodes to ${sig.length} bytes; an Ed25519 signature is 64`, SIGNATURE_MEMBER);
    }
    return sig;
}
function faultOf(e) {
    return e.member === undefined
        ? { kind: e.kind, message: e.message }
        : { kind: e.kind, message: e.message, member: e.member };
}
/** Reads and sorts a receipt's members; throws ReceiptFormatError on the first structural fault. */
function scan(input, options) {
    const bytes = receiptBytes(input, options.maxBytes ?? DEFAULT_MAX_RECEIPT_BYTES);
    return classify(readTar(bytes));
}
/**
 * A receipt's parts, in memory (nothing is extracted). Structure, manifest and
 * signature encoding are checked; the chain, blobs and signature are not (use
 * `verifyReceipt`). Throws ReceiptFormatError (exit 1) or InputError (exit 2:
 * the file cannot be read).
 */
function loadReceipt(input, options = {}) {
    const { members, faults } = scan(input, options);
    if (faults.length > 0)
        throw new ReceiptFormatError(faults[0].kind, faults[0].message, faults[0].member);
    if (members.manifest === undefined)
        throw new ReceiptFormatError('missing_member', 'the receipt has no manifest.json', MANIFEST_MEMBER);
    if (members.journal === undefined)
        throw new ReceiptFormatError('missing_member', `the receipt has no ${JOURNAL_MEMBER}`, JOURNAL_MEMBER);
    const loaded = {
        manifest: parseManifest(members.manifest),
        manifestBytes: members.manifest,
        journal: members.journal,
        blobs: members.blobs,
    };
    if (members.signature !== undefined)
        loaded.signature = decodeSignature(members.signature);
    return loaded;
}
/**
 * Verifies a receipt offline (docs/format.md §3), never writing anything: member names and
 * types, manifest (canonical, format_version), signature against trusted keys,
 * the chain from genesis (canonical lines), manifest head/steps/blob_digests
 * against the chain, bundled blob digests, and the expected head. Every fault is
 * reported; only an unreadable file throws (InputError).
 */
function verifyReceipt(input, options = {}) {
    const result = {
        ok: false,
        head_hash: ZERO_HASH,
        steps: 0,
        signed: false,
        signature_ok: null,
        key_id: null,
        blobs: { bundled: [], missing: [] },
        errors: [],
    };
    const errors = result.errors;
    let members;
    try {
        const s = scan(input, options);
        if (s.faults.length > 0) {
            // A hostile layout is not interpreted any further.
            errors.push(...s.faults);
            return result;
        }
        members = s.members;
    }
    catch (e) {
        if (e instanceof ReceiptFormatError) {
            errors.push(faultOf(e));
            return result;
        }
        throw e;
    }
    result.signed = members.signature !== undefined;
    result.blobs.bundled = [...members.blobs.keys()];
    let manifest;
    if (members.manifest === undefined) {
        errors.push({ kind: 'missing_member', message: 'the receipt has no manifest.json', member: MANIFEST_MEMBER });
    }
    else {
        try {
            manifest = parseManifest(members.manifest);
        }
        catch (e) {
            if (!(e instanceof ReceiptFormatError))
                throw e;
            errors.push(faultOf(e));
        }
    }
    const keys = options.publicKeys ?? [];
    if (members.signature !== undefined) {
        let sig;
        try {
            sig = decodeSignature(members.signature);
        }
        catch (e) {
            if (!(e instanceof ReceiptFormatError))
                throw e;
            errors.push(faultOf(e));
        }
        if (keys.length === 0) {
            errors.push({
                kind: 'no_trusted_key',
                message: 'the receipt is signed but no public key was given to check it (--public-key)',
                member: SIGNATURE_MEMBER,
            });
        }
        else if (sig !== undefined && members.manifest !== undefined) {
            const good = keys.find((k) => verifyBytes(members.manifest, sig, k));
            result.signature_ok = good !== undefined;
            result.key_id = good?.keyId ?? null;
            if (good === undefined) {
                errors.push({
                    kind: 'signature_invalid',
                    message: `the signature does not verify under any trusted key (${keys.map((k) => k.keyId).join(', ')})`,
                    member: SIGNATURE_MEMBER,
                });
            }
        }
        else if (sig !== undefined) {
            result.signature_ok = false;
        }
    }
    else if (keys.length > 0) {
        errors.push({
            kind: 'unsigned',
            message: 'a trusted key was given but the receipt is not signed (no manifest.sig)',
            member: SIGNATURE_MEMBER,
        });
    }
    let chainRefs;
    if (members.journal === undefined) {
        errors.push({ kind: 'missing_member', message: `the receipt has no ${JOURNAL_MEMBER}`, member: JOURNAL_MEMBER });
    }
    else {
        const walked = walkReceiptJournal(members.journal);
        for (const f of walked.faults) {
            const fault = { kind: f.kind, message: f.message, member: JOURNAL_MEMBER };
            if (f.line !== null)
                fault.line = f.line;
            errors.push(fault);
        }
        result.head_hash = walked.head;
        result.steps = walked.steps;
        chainRefs = walked.refs;
    }
    if (manifest !== undefined && chainRefs !== undefined) {
        if (manifest.head_hash !== result.head_hash) {
            errors.push({
                kind: 'manifest_head_mismatch',
                message: `manifest head_hash ${manifest.head_hash}, the chain's head is ${result.head_hash}`,
                member: MANIFEST_MEMBER,
            });
        }
        if (manifest.steps !== result.steps) {
            errors.push({
                kind: 'manifest_steps_mismatch',
                message: `manifest steps ${manifest.steps}, the chain has ${result.steps}`,
                member: MANIFEST_MEMBER,
            });
        }
        const same = manifest.blob_digests.length === chainRefs.length && manifest.blob_digests.every((d, i) => d === chainRefs[i]);
        if (!same) {
            errors.push({
                kind: 'blob_digests_mismatch',
                message: `manifest blob_digests (${manifest.blob_digests.length}) differ from the chain's blob_refs (${chainRefs.length}, first-occurrence order)`,
                member: MANIFEST_MEMBER,
            });
        }
    }
    const named = manifest?.blob_digests ?? chainRefs ?? [];
    const namedSet = new Set(named);
    for (const [digest, data] of members.blobs) {
        const member = `blobs/${digest}`;
        if (sha256Hex(data) !== digest)
            errors.push({ kind: 'blob_digest_mismatch', message: `the blob's SHA-256 is not its name`, member });
        if (!namedSet.has(digest))
            errors.push({ kind: 'unexpected_blob', message: 'a bundled blob that no step refers to', member });
    }
    result.blobs.missing = named.filter((d) => !members.blobs.has(d));
    if (options.requireBlobs) {
        for (const d of result.blobs.missing)
            errors.push({ kind: 'missing_blob', message: 'a referenced blob is not bundled', member: `blobs/${d}` });
    }
    if (options.expectedHead !== undefined && options.expectedHead !== result.head_hash) {
        errors.push({ kind: 'head_mismatch', message: `head ${result.head_hash}, expected ${options.expectedHead}` });
    }
    result.ok = errors.length === 0;
    return result;
}
/**
 * The chain walk of a receipt's journal member (docs/format.md §2 verification, strict:
 * lines must be canonical and newline-terminated). Same faults as
 * `verifyJournalBytes(buf, { strict: true })`, but keeps only the blob refs, not
 * the rows, so a 100,000-step receipt does not sit in memory twice.
 */
function walkReceiptJournal(buf) {
    // The journal's fast, parallel strict walk (canonical lines hashed from their bytes).
    const r = verifyJournalBytesWithRefs(buf, { strict: true });
    return { head: r.head_hash, steps: r.steps, refs: r.blob_refs, faults: r.errors };
}
/** `RECEIPT[:member[:line]]: kind: message` for one fault. */
function describeReceiptFault(receipt, f) {
    const where = f.member === undefined ? receipt : `${receipt}:${f.member}${f.line === undefined ? '' : `:${f.line}`}`;
    return `${where}: ${f.kind}: ${f.message}`;
}

;// CONCATENATED MODULE: ./src/receipt/export.ts
















/** Best-effort audit event for a written receipt: a warning when it could not be written. */
function auditReceipt(audit, eventType, agentId, details) {
    if (audit === undefined)
        return undefined;
    const failed = auditEvent(audit.root, eventType, {
        actor: operatorActor(audit.env),
        resource_type: 'journal',
        resource_id: agentId,
        details: { agent: agentId, ...details },
    }, { env: audit.env });
    return failed === undefined ? undefined : `receipt written, but ${failed}`;
}
/** The journal member: each verified row's canonical line (its own bytes when they already are canonical). */
function canonicalJournalBytes(entries) {
    const parts = [];
    const nl = Buffer.from('\n');
    for (const e of entries) {
        parts.push(e.canonical ? e.bytes : Buffer.from(canonicalOfRead(rowValue(e.row)), 'utf8'), nl);
    }
    return Buffer.concat(parts);
}
function defaultAgentId(journalFile) {
    return external_node_path_default().basename(external_node_path_default().dirname(external_node_path_default().resolve(journalFile)));
}
/** Packs manifest, signature, journal and blobs (in that order) into a receipt. */
function packReceipt(manifest, journal, blobs, options) {
    const manifestBytes = encodeManifest(manifest);
    const members = [{ name: MANIFEST_MEMBER, data: manifestBytes }];
    if (options.signKey !== undefined) {
        members.push({
            name: SIGNATURE_MEMBER,
            data: Buffer.from(signBytes(manifestBytes, options.signKey).toString('base64'), 'latin1'),
        });
    }
    members.push({ name: JOURNAL_MEMBER, data: journal });
    for (const [digest, data] of blobs)
        members.push({ name: `blobs/${digest}`, data });
    let bytes = writeTar(members, createdAtSeconds(manifest.created_at));
    if (options.gzip)
        bytes = (0,external_node_zlib_namespaceObject.gzipSync)(bytes, { level: 6 });
    return { bytes, signed: options.signKey !== undefined, key_id: options.signKey?.keyId ?? null };
}
function newManifest(agentId, head, steps, blobDigests, now = new Date()) {
    return {
        agent_id: assertSafeId(agentId, 'agent id'),
        head_hash: head,
        steps,
        bernstein_version: PRODUCER,
        created_at: formatCreatedAt(now),
        blob_digests: blobDigests,
        format_version: FORMAT_VERSION,
    };
}
/**
 * A receipt of a journal, in memory. The journal is verified first (a broken
 * chain is never exported: IntegrityError naming the first fault); blobs are
 * bundled from the CAS best-effort, and the ones it lacks are reported.
 */
function export_buildReceipt(journalFile, options = {}) {
    // Verified first, on the fast path; its canonical lines are the file's own bytes when they already are.
    const { result: read, bytes: journalBytes, blob_refs: digests } = readCanonicalJournal(journalFile);
    if (!read.ok) {
        const more = read.errors.length > 1 ? ` (and ${read.errors.length - 1} more fault${read.errors.length > 2 ? 's' : ''})` : '';
        throw new errors_IntegrityError(`${describeFault(journalFile, read.errors[0])}${more}`);
    }
    const agentId = options.agentId ?? defaultAgentId(journalFile);
    const root = projectRootOf(external_node_path_default().dirname(external_node_path_default().resolve(journalFile)));
    const cas = options.cas ?? (root === undefined ? undefined : new Cas(casDir(root), false));
    const bundled = [];
    const missing = [];
    const warnings = [];
    for (const d of digests) {
        const data = cas?.get(d);
        if (data === undefined) {
            missing.push(d);
        }
        else if (sha256Hex(data) !== d) {
            warnings.push(`CAS blob ${d} does not match its digest; left out of the receipt`);
            missing.push(d);
        }
        else {
            bundled.push([d, data]);
        }
    }
    const manifest = newManifest(agentId, read.head_hash, read.steps, digests, options.now);
    const packed = packReceipt(manifest, journalBytes, bundled, options);
    return { ...packed, manifest, blobs: { bundled: bundled.map(([d]) => d), missing }, warnings };
}
/** Whether an output name asks for gzip. */
function wantsGzip(outFile) {
    return /\.(gz|tgz)$/i.test(outFile);
}
/** A receipt written over its own journal would destroy it. */
function refuseOverwritingJournal(journalFile, outFile) {
    if (external_node_path_default().resolve(journalFile) === external_node_path_default().resolve(outFile))
        throw new errors_InputError(`${outFile}: the receipt would overwrite the journal`);
}
/** Writes a file atomically (temporary name beside it, fsync, rename). */
function export_writeFileAtomic(file, bytes) {
    const dir = external_node_path_default().dirname(external_node_path_default().resolve(file));
    try {
        if ((0,external_node_fs_namespaceObject.statSync)(file).isDirectory())
            throw new errors_InputError(`${file}: is a directory`);
    }
    catch (e) {
        if (e instanceof errors_InputError)
            throw e;
    }
    try {
        if (!(0,external_node_fs_namespaceObject.statSync)(dir).isDirectory())
            throw new Error('not a directory');
    }
    catch {
        throw new errors_InputError(`${file}: cannot write: the directory ${dir} does not exist`);
    }
    const tmp = external_node_path_default().join(dir, `.${external_node_path_default().basename(file)}.tmp-${process.pid}-${Math.random().toString(36).slice(2)}`);
    let fd;
    try {
        fd = (0,external_node_fs_namespaceObject.openSync)(tmp, 'wx', 0o644);
    }
    catch (e) {
        throw new errors_InputError(`${file}: cannot write: ${e.code ?? e.message}`);
    }
    try {
        writeAll(fd, bytes);
        (0,external_node_fs_namespaceObject.fsyncSync)(fd);
        (0,external_node_fs_namespaceObject.closeSync)(fd);
        (0,external_node_fs_namespaceObject.renameSync)(tmp, file);
    }
    catch (e) {
        try {
            (0,external_node_fs_namespaceObject.closeSync)(fd);
        }
        catch {
            /* already closed */
        }
        try {
            (0,external_node_fs_namespaceObject.unlinkSync)(tmp);
        }
        catch {
            /* renamed or gone */
        }
        throw new errors_InputError(`${file}: cannot write: ${e.code ?? e.message}`);
    }
    fsyncDir(dir);
}
/** `stepchain export`: builds the receipt and writes it to `outFile`. */
function exportReceipt(journalFile, outFile, options = {}) {
    refuseOverwritingJournal(journalFile, outFile);
    const built = export_buildReceipt(journalFile, { ...options, gzip: options.gzip ?? wantsGzip(outFile) });
    export_writeFileAtomic(outFile, built.bytes);
    const warning = auditReceipt(options.audit, 'replay.export', built.manifest.agent_id, {
        receipt: external_node_path_default().resolve(outFile),
        head_hash: built.manifest.head_hash,
        steps: built.manifest.steps,
        signed: built.signed,
        key_id: built.key_id,
    });
    if (warning !== undefined)
        built.warnings.push(warning);
    return built;
}

;// CONCATENATED MODULE: ./src/receipt/publish.ts






/** The fields a redaction policy may replace (docs/format.md §3). */
const REDACTABLE_FIELDS = ['prompt', 'model', 'tool_call', 'tool_result'];
const DEFAULT_REDACT = ['prompt', 'tool_result'];
const REDACTED = '<<redacted>>';
/** Parses `--redact prompt,tool_result`: known fields only, at least one. */
function parseRedactFields(text) {
    const parts = text.split(',').map((s) => s.trim());
    const out = [];
    for (const p of parts) {
        if (!REDACTABLE_FIELDS.includes(p)) {
            throw new errors_InputError(`--redact: ${JSON.stringify(p)} is not a redactable field (allowed: ${REDACTABLE_FIELDS.join(', ')})`);
        }
        if (!out.includes(p))
            out.push(p);
    }
    return out;
}
/**
 * Replaces each non-null value of the chosen fields by `<<redacted>>`, empties
 * `blob_refs`, and re-anchors the chain from genesis over the redacted rows.
 */
function redactRows(rows, fields) {
    let prev = ZERO_HASH;
    const parts = [];
    for (const r of rows) {
        const pick = (f, v) => (fields.includes(f) && v !== null ? REDACTED : v);
        const hashed = {
            prev_hash: prev,
            input_hash: r.input_hash,
            model: pick('model', r.model),
            prompt: pick('prompt', r.prompt),
            tool_call: pick('tool_call', r.tool_call),
            tool_result: pick('tool_result', r.tool_result),
        };
        // `read` encoding: values written by a Python peer may hold NaN/Infinity.
        const step_hash = computeStepHash(hashed, true);
        parts.push(encode_canonicalOfRead({ ...hashed, blob_refs: [], seq: r.seq, step_hash, ts: value_float(r.ts) }));
        prev = step_hash;
    }
    return {
        lines: Buffer.from(parts.map((p) => `${p}\n`).join(''), 'utf8'),
        head: rows.length > 0 ? prev : ZERO_HASH,
        steps: rows.length,
    };
}
function checkOptIn(options) {
    if (options.optIn !== true) {
        throw new errors_InputError('publish: refusing without --opt-in (receipts stay local unless you explicitly opt in); nothing was written');
    }
    const fields = [...(options.redact ?? DEFAULT_REDACT)];
    for (const f of fields) {
        if (!REDACTABLE_FIELDS.includes(f))
            throw new errors_InputError(`publish: ${JSON.stringify(f)} is not a redactable field`);
    }
    if (fields.length === 0)
        throw new errors_InputError('publish: give at least one field to redact');
    return fields;
}
/** A redacted receipt in memory; the journal is only read (verified first). */
function publish_buildPublishedReceipt(journalFile, options) {
    const fields = checkOptIn(options);
    const read = readVerifiedJournal(journalFile);
    const chain = redactRows(read.entries.map((e) => e.row), fields);
    const agentId = options.agentId ?? external_node_path_default().basename(external_node_path_default().dirname(external_node_path_default().resolve(journalFile)));
    const manifest = newManifest(agentId, chain.head, chain.steps, [], options.now);
    const packed = packReceipt(manifest, chain.lines, [], options);
    return {
        bytes: packed.bytes,
        manifest,
        original_head: read.head_hash,
        published_head: chain.head,
        steps: chain.steps,
        redacted: fields,
        signed: packed.signed,
        key_id: packed.key_id,
        warnings: [],
    };
}
/** `stepchain publish`: refuses without opt-in (writing nothing), else writes the redacted receipt. */
function publishReceipt(journalFile, outFile, options) {
    refuseOverwritingJournal(journalFile, outFile);
    const r = publish_buildPublishedReceipt(journalFile, { ...options, gzip: options.gzip ?? wantsGzip(outFile) });
    export_writeFileAtomic(outFile, r.bytes);
    const warning = auditReceipt(options.audit, 'replay.publish', r.manifest.agent_id, {
        receipt: external_node_path_default().resolve(outFile),
        original_head: r.original_head,
        published_head: r.published_head,
        steps: r.steps,
        redacted: r.redacted,
        signed: r.signed,
        key_id: r.key_id,
    });
    if (warning !== undefined)
        r.warnings.push(warning);
    return r;
}

;// CONCATENATED MODULE: ./src/receipt/sniff.ts

const NAME = /\.(tar|tar\.gz|tgz)$/i;
const GZIP = (b) => b.length >= 2 && b[0] === 0x1f && b[1] === 0x8b;
const USTAR = (b) => b.length >= 262 && b.toString('latin1', 257, 262) === 'ustar';
function headOf(file) {
    const fd = (0,external_node_fs_namespaceObject.openSync)(file, 'r');
    try {
        const buf = Buffer.alloc(512);
        const n = (0,external_node_fs_namespaceObject.readSync)(fd, buf, 0, 512, 0);
        return buf.subarray(0, n);
    }
    finally {
        (0,external_node_fs_namespaceObject.closeSync)(fd);
    }
}
/**
 * Whether a command-line target names a receipt rather than a journal: a
 * `.tar`/`.tar.gz`/`.tgz` name, or an existing file that starts as a gzip or
 * ustar archive (a journal is JSON lines).
 */
function looksLikeReceipt(file) {
    if (NAME.test(file))
        return true;
    try {
        if (!(0,external_node_fs_namespaceObject.statSync)(file).isFile())
            return false;
        const head = headOf(file);
        return GZIP(head) || USTAR(head);
    }
    catch {
        return false;
    }
}

;// CONCATENATED MODULE: ./src/receipt/trust.ts
/** The verdict on a receipt's signature, from what `verifyReceipt` found and how many trusted keys were given. */
function signatureVerdict(checked, trustedKeys) {
    if (!checked.signed) {
        return trustedKeys === 0
            ? { status: 'unsigned', holds: true, key_id: null, text: 'unsigned', warn: false }
            : {
                status: 'unsigned_but_required',
                holds: false,
                key_id: null,
                text: 'unsigned, but a trusted key was given: a signature is required',
                warn: true,
            };
    }
    if (trustedKeys === 0) {
        return {
            status: 'not_checked',
            holds: false,
            key_id: null,
            text: 'signature NOT checked (signed, but no trusted public key was given: --public-key FILE)',
            warn: true,
        };
    }
    if (checked.signature_ok === true) {
        return {
            status: 'verified',
            holds: true,
            key_id: checked.key_id,
            text: `signature verified (key id ${checked.key_id ?? '?'})`,
            warn: false,
        };
    }
    return {
        status: 'invalid',
        holds: false,
        key_id: null,
        text: 'signature INVALID: it does not verify under any trusted key',
        warn: true,
    };
}

;// CONCATENATED MODULE: ./src/receipt/index.ts










;// CONCATENATED MODULE: ./src/runs/provider-state.ts


/** Journal event type of one observed provider-side context mutation. */
const MUTATION_EVENT = 'provider_state_mutation';
/** Journal event type of an adapter's mutation-observability capability for the run. */
const CAPABILITY_EVENT = 'provider_state_capability';
const CAPABILITIES = ['observed', 'declared-blind'];
/** Environment variables that put a run in a deterministic mode (record with a seed, or hermetic replay). */
const DETERMINISTIC_ENV = [
    'STEPCHAIN_DETERMINISTIC_SEED',
    'STEPCHAIN_REPLAY_RUN_ID',
    'BERNSTEIN_DETERMINISTIC_SEED',
    'BERNSTEIN_REPLAY_RUN_ID',
];
/** The deterministic-mode variable that is set (non-blank), if any. */
function deterministicModeVar(env) {
    return DETERMINISTIC_ENV.find((k) => (env[k] ?? '').trim() !== '');
}
const BEFORE_PREFIXES = ['pre_', 'before_'];
/** sha256 hex of `canonical(v)`. */
function canonicalSha256(v) {
    return sha256Hex(encode_canonicalOfRead(v));
}
/**
 * From a provider's reported detail: `before_digest` covers the top-level
 * fields named `pre_*` / `before_*` (the reported pre-mutation state; the
 * empty-object digest when there are none), `after_digest` the whole detail.
 */
function mutationFromSignal(kind, detail, stepIndex, flagged) {
    const before = {};
    for (const [k, v] of Object.entries(detail)) {
        if (BEFORE_PREFIXES.some((p) => k.startsWith(p))) {
            Object.defineProperty(before, k, { value: v, enumerable: true, writable: true, configurable: true });
        }
    }
    return {
        kind,
        before_digest: canonicalSha256(before),
        after_digest: canonicalSha256(detail),
        step_index: stepIndex,
        flagged,
    };
}
/** `sha256(canonical({kind, before_digest, after_digest, step_index}))`: `flagged` is policy, not identity. */
function contentAddress(m) {
    return canonicalSha256({
        kind: m.kind,
        before_digest: m.before_digest,
        after_digest: m.after_digest,
        step_index: m.step_index,
    });
}
/** The payload of a `provider_state_mutation` row, in the reference's key order. */
function mutationPayload(m, agentId) {
    return new Map([
        ['mutation_kind', m.kind],
        ['before_digest', m.before_digest],
        ['after_digest', m.after_digest],
        ['step_index', m.step_index],
        ['content_address', contentAddress(m)],
        ['flagged', m.flagged],
        ['agent_id', agentId],
    ]);
}
function capabilityPayload(adapter, capability) {
    return new Map([
        ['adapter', adapter],
        ['capability', capability],
    ]);
}
/** Why a mutation row's fields do not hold (content address, types), or undefined. */
function checkMutationRow(payload) {
    const kind = payload.get('mutation_kind');
    const stepIndex = payload.get('step_index');
    const stored = payload.get('content_address');
    if (typeof kind !== 'string')
        return 'mutation_kind is not a string';
    if (!isJsonInteger(stepIndex))
        return 'step_index is not an integer';
    const expected = contentAddress({
        kind,
        before_digest: payload.get('before_digest') ?? '',
        after_digest: payload.get('after_digest') ?? '',
        step_index: stepIndex,
    });
    if (stored !== expected) {
        return `content address ${typeof stored === 'string' ? stored : JSON.stringify(stored)} does not match its fields (expected ${expected})`;
    }
    return undefined;
}

;// CONCATENATED MODULE: ./src/runs/row.ts


/** The run journal's genesis `prev_hash` (the reference's `_GENESIS_HASH`). */
const RUN_GENESIS = '';
/** Row keys that are not payload: excluded from `payload_hash` (the reference's `_NON_DETERMINISTIC_FIELDS`). */
const ENVELOPE_KEYS = ['ts', 'elapsed_s', 'index', 'prev_hash', 'payload_hash', 'event_hash'];
const ENVELOPE = new Set(ENVELOPE_KEYS);
/** Keys a payload may not use (they would overwrite the envelope or the event type on the row). */
const RESERVED_PAYLOAD_KEYS = new Set([...ENVELOPE_KEYS, 'event']);
/**
 * `payload_hash = sha256(canonical(payload minus the envelope, plus "event": type))`.
 * `payload` may be a whole row: the envelope keys are dropped and `event` is set.
 */
function computePayloadHash(eventType, payload) {
    const projected = new Map();
    for (const [k, v] of payload)
        if (!ENVELOPE.has(k))
            projected.set(k, v);
    projected.set('event', eventType);
    return sha256Hex(encode_canonicalOfRead(projected));
}
/** `event_hash = sha256(canonical({prev_hash, event_type, payload_hash, index}))`. */
function computeEventHash(prevHash, eventType, payloadHash, index) {
    return sha256Hex(encode_canonicalOfRead({ prev_hash: prevHash, event_type: eventType, payload_hash: payloadHash, index }));
}
/** The row as a JSON value, keys in the reference's order: envelope, event, chain fields, then the payload. */
function runRowValue(row) {
    const m = new Map([
        ['ts', value_float(row.ts)],
        ['elapsed_s', value_float(row.elapsed_s)],
        ['index', row.index],
        ['event', row.event],
        ['prev_hash', row.prev_hash],
        ['payload_hash', row.payload_hash],
        ['event_hash', row.event_hash],
    ]);
    for (const [k, v] of row.payload)
        m.set(k, v);
    return m;
}
/** The line for a row (no newline): Python `json.dumps(row)`, insertion order, default separators. */
function encodeRunRow(row) {
    return prettyInsertionOrder(runRowValue(row));
}
/** Reads one line (without its newline) as a run journal row; never throws. */
function readRunLine(bytes) {
    let text;
    let value;
    try {
        text = decodeUtf8(bytes);
        value = parse(text, { objects: 'map' });
    }
    catch (e) {
        if (e instanceof JsonParseError)
            return { kind: 'malformed', reason: e.message };
        if (e instanceof RangeError)
            return { kind: 'malformed', reason: 'line too large or too deeply nested' };
        throw e;
    }
    if (!(value instanceof Map))
        return { kind: 'malformed', reason: 'line is not a JSON object' };
    const get = (k) => value.get(k);
    for (const k of ['event', 'prev_hash', 'payload_hash', 'event_hash']) {
        if (typeof get(k) !== 'string')
            return { kind: 'malformed', reason: `row has no string "${k}"` };
    }
    const index = get('index');
    if (!isJsonInteger(index) || typeof index === 'bigint' || index < 0) {
        return { kind: 'malformed', reason: 'row has no non-negative integer "index"' };
    }
    const payload = new Map();
    for (const [k, v] of value)
        if (!RESERVED_PAYLOAD_KEYS.has(k))
            payload.set(k, v);
    const row = {
        ts: numericValue(get('ts')) ?? NaN,
        elapsed_s: numericValue(get('elapsed_s')) ?? NaN,
        index,
        event: get('event'),
        prev_hash: get('prev_hash'),
        payload_hash: get('payload_hash'),
        event_hash: get('event_hash'),
        payload,
    };
    let canonical;
    try {
        canonical = encode(value, { sortKeys: false, separators: 'pretty', allowNonFinite: true }) === text;
    }
    catch {
        canonical = false;
    }
    return { kind: 'row', row, computedPayloadHash: computePayloadHash(row.event, value), canonical };
}

;// CONCATENATED MODULE: ./src/runs/verify.ts





// Hashes in full: a fault message is evidence, and JSON output never carries a cut hash.
const verify_short = (h) => (h.length > 16 ? h : JSON.stringify(h));
/**
 * Verifies run journal bytes (docs/format.md §5): recomputes every payload and event hash
 * from genesis, checks `prev_hash` links and indices, every mutation's content
 * address, flags, and one capability per adapter. Every fault is reported with
 * its line and index; the chain follows the stored hashes, so one edit is
 * reported once. A malformed line does not advance the index.
 */
function readRunJournalBytes(buf, options = {}) {
    const errors = [];
    const entries = [];
    const flagged = [];
    const capabilities = new Map();
    let prev = RUN_GENESIS;
    let index = 0;
    let mutations = 0;
    let divergent;
    let chainOk = true;
    forEachLine(buf, (start, end, line, terminated) => {
        const bytes = buf.subarray(start, end);
        if (bytes.length === 0) {
            chainOk = false;
            errors.push({ line, index: null, kind: 'malformed_json', message: 'empty line' });
            return;
        }
        const read = readRunLine(bytes);
        if (read.kind === 'malformed') {
            chainOk = false;
            errors.push({ line, index: null, kind: 'malformed_json', message: read.reason });
            return;
        }
        const { row } = read;
        const i = index;
        const fault = (kind, message) => void errors.push({ line, index: i, kind, message });
        const expected = computeEventHash(prev, row.event, read.computedPayloadHash, i);
        let broken = false;
        if (row.index !== i) {
            broken = true;
            fault('index_mismatch', `index ${row.index}, expected ${i}`);
        }
        if (row.prev_hash !== prev) {
            broken = true;
            fault('prev_hash_mismatch', `chain break: prev_hash ${verify_short(row.prev_hash)} does not match the previous event_hash ${verify_short(prev)}`);
        }
        if (row.payload_hash !== read.computedPayloadHash) {
            broken = true;
            fault('payload_hash_mismatch', `payload tamper: stored payload_hash ${verify_short(row.payload_hash)}, recomputed ${verify_short(read.computedPayloadHash)}`);
        }
        if (row.event_hash !== expected) {
            broken = true;
            fault('event_hash_mismatch', `stored event_hash ${verify_short(row.event_hash)}, recomputed ${verify_short(expected)}`);
        }
        if (broken) {
            chainOk = false;
            divergent ??= { index: i, expected, actual: row.event_hash };
        }
        if (options.strict && !read.canonical)
            fault('non_canonical', 'line bytes are not json.dumps(row) of its values');
        if (options.strict && !terminated)
            fault('non_canonical', 'last line has no trailing newline');
        if (row.event === MUTATION_EVENT) {
            mutations++;
            const bad = checkMutationRow(row.payload);
            if (bad !== undefined)
                fault('content_address_mismatch', `${MUTATION_EVENT}: ${bad}`);
            if (row.payload.get('flagged') === true) {
                flagged.push(i);
                fault('flagged_mutation', `flagged provider-side mutation (${String(row.payload.get('mutation_kind'))}) arrived in deterministic mode`);
            }
        }
        else if (row.event === CAPABILITY_EVENT) {
            const adapter = row.payload.get('adapter');
            const capability = row.payload.get('capability');
            if (typeof adapter !== 'string' ||
                typeof capability !== 'string' ||
                !CAPABILITIES.includes(capability)) {
                fault('bad_capability', `${CAPABILITY_EVENT}: needs a string adapter and capability observed or declared-blind`);
            }
            else if (capabilities.has(adapter) && capabilities.get(adapter) !== capability) {
                fault('capability_conflict', `adapter ${JSON.stringify(adapter)} recorded as ${capabilities.get(adapter)} and as ${capability} in one run`);
            }
            else {
                capabilities.set(adapter, capability);
            }
        }
        entries.push({ line, row });
        prev = row.event_hash;
        index++;
    });
    return {
        ok: errors.length === 0,
        chain_ok: chainOk,
        count: index,
        steps: index,
        head_hash: prev,
        divergent_index: divergent?.index ?? null,
        expected_hash: divergent?.expected ?? null,
        actual_hash: divergent?.actual ?? null,
        mutation_count: mutations,
        flagged_indices: flagged,
        capabilities: [...capabilities].map(([adapter, capability]) => ({ adapter, capability })),
        errors,
        entries,
    };
}
function readRunJournalFileBytes(file) {
    let st;
    try {
        st = (0,external_node_fs_namespaceObject.statSync)(file);
    }
    catch {
        throw new errors_InputError(`${file}: no such run journal`);
    }
    if (!st.isFile())
        throw new errors_InputError(`${file}: not a regular file`);
    try {
        return (0,external_node_fs_namespaceObject.readFileSync)(file);
    }
    catch (e) {
        throw new errors_InputError(`${file}: cannot read: ${e.code ?? e.message}`);
    }
}
function readRunJournalFile(file, options = {}) {
    return readRunJournalBytes(readRunJournalFileBytes(file), options);
}
/** The verify result for a run journal file (the shape `run verify --json` prints). */
function verifyRunJournal(file, options = {}) {
    const { entries: _entries, ...result } = readRunJournalFile(file, options);
    return result;
}
/** `file:line: kind: message (index N)` for one fault. */
function describeRunFault(file, f) {
    return `${file}:${f.line}: ${f.kind}${f.index === null ? '' : ` at index ${f.index}`}: ${f.message}`;
}

;// CONCATENATED MODULE: ./src/check/workspace.ts










/**
 * Checks a repository's committed stepchain files, as a PR check does: every
 * per-step journal, run journal and receipt found by the globs is verified, and
 * with a base commit every journal that existed there must still hold its base
 * rows as an exact byte prefix (append-only). Faults carry repository-relative
 * paths and 1-based lines so they can be annotated where they are.
 *
 * Everything is read without following a symbolic link below the root (a link
 * is a fault naming it), and nothing in the checkout is its own trust anchor:
 * keys and pinned heads come from the caller.
 */
const workspace_DEFAULT_JOURNALS = '.sdd/runtime/journal/*/000000.jsonl';
const DEFAULT_RUNS = '.sdd/runs/*/journal.jsonl';
const DEFAULT_RECEIPTS = '**/*.receipt.tar, **/*.receipt.tar.gz, **/*.receipt.tgz';
/** The id of a journal from its path: `<id>/000000.jsonl` or `<id>/journal.jsonl`. */
function workspace_idOfPath(rel) {
    const parts = rel.split('/');
    return parts.length >= 2 ? parts[parts.length - 2] : rel;
}
/** The shard a path belongs to: the first 32 bits of SHA-256 of its `/`-separated path, modulo the count. */
function shardOf(rel, count) {
    if (count <= 1)
        return 0;
    return (0,external_node_crypto_namespaceObject.createHash)('sha256').update(rel, 'utf8').digest().readUInt32BE(0) % count;
}
const APPEND_FAULT = {
    deleted: 'history_deleted',
    truncated: 'history_truncated',
    rewritten: 'history_rewritten',
};
/** The 1-based line of the first CRLF, or 0. Canonical rows never hold a raw CR, so one means a converted checkout. */
function crlfLine(bytes) {
    const i = bytes.indexOf('\r\n');
    if (i < 0)
        return 0;
    let line = 1;
    for (let j = bytes.indexOf(0x0a); j >= 0 && j < i; j = bytes.indexOf(0x0a, j + 1))
        line++;
    return line;
}
const CRLF_REMEDY = 'git converted the line endings on checkout (core.autocrlf=true?), so every row differs from what was hashed; ' +
    'add `.sdd/** -text` (and your journal paths) to .gitattributes, or run `git config core.autocrlf false` before the checkout';
async function checkWorkspace(options) {
    const root = external_node_path_default().resolve(options.root);
    const shard = options.shard !== undefined && options.shard.count > 1 ? options.shard : null;
    const mine = (rel) => shard === null || shardOf(rel, shard.count) === shard.index;
    const report = {
        ok: true,
        root,
        base: options.base ?? null,
        fetchedBase: false,
        fetchedBlobs: 0,
        verified: 0,
        failed: 0,
        heads: {},
        items: [],
        faults: [],
        matched: { journal: 0, run: 0, receipt: 0 },
        shard,
        trustedKeys: options.keySources ?? [],
    };
    const fault = (f) => {
        report.faults.push(f);
    };
    const on = {
        journal: options.verifyJournals !== false,
        run: options.verifyRuns !== false,
        receipt: options.verifyReceipts !== false,
    };
    const sets = {
        journal: glob_globSet(options.journals ?? workspace_DEFAULT_JOURNALS),
        run: glob_globSet(options.runs ?? DEFAULT_RUNS),
        receipt: glob_globSet(options.receipts ?? DEFAULT_RECEIPTS),
    };
    // The checkout: files per kind (all shards, for renames and pins), and the links never followed.
    const found = { journal: [], run: [], receipt: [] };
    const linked = new Set();
    const cache = options.dirCache ?? new Map();
    const checked = new Set();
    for (const kind of ['journal', 'run', 'receipt']) {
        if (!on[kind])
            continue;
        const scan = glob_scanFiles(root, sets[kind], cache);
        found[kind] = scan.files;
        report.matched[kind] = scan.files.length;
        for (const l of scan.links) {
            if (linked.has(l.path) || !mine(l.path))
                continue;
            linked.add(l.path);
            fault({
                item: kind,
                path: l.path,
                line: null,
                kind: 'symlink',
                message: l.severity === 'error'
                    ? `${l.path} is a symbolic link: stepchain never follows a link in the checkout (it could point at .git/config or /proc/self/environ)`
                    : `${l.path} is a symbolic link to a directory: not searched (links in the checkout are never followed)`,
                severity: l.severity,
            });
        }
    }
    // The base: its journals and run journals (this shard's), read in one batch.
    const baseFiles = new Map();
    const basePaths = new Set();
    if (options.base !== undefined && (on.journal || on.run)) {
        report.fetchedBase = await ensureCommit(root, options.base, options.remote);
        const kindOf = (p) => on.journal && matchesGlob(sets.journal, p) ? 'journal' : on.run && matchesGlob(sets.run, p) ? 'run' : undefined;
        const listed = await listBlobsAtCommit(root, options.base, (p) => kindOf(p) !== undefined);
        for (const b of listed)
            basePaths.add(b.path);
        const wanted = listed.filter((b) => mine(b.path));
        report.fetchedBlobs = await prefetchBlobs(root, options.base, wanted.map((b) => b.oid));
        const contents = await readBlobs(root, wanted.map((b) => b.oid));
        for (const b of wanted) {
            const bytes = contents.get(b.oid);
            if (bytes !== undefined)
                baseFiles.set(b.path, { kind: kindOf(b.path), bytes });
        }
    }
    /** Reads a checkout file, never through a link; a fault (and undefined) when it cannot be. */
    const readItem = (kind, rel, id, max) => {
        const r = nofollow_readUnder(root, rel, max, checked);
        if (r.kind === 'file')
            return r.bytes;
        const why = r.kind === 'symlink'
            ? `${r.at} is a symbolic link: never followed`
            : r.kind === 'too_large'
                ? `${r.size} bytes, over the ${max ?? 0}-byte limit`
                : r.kind === 'missing'
                    ? 'vanished while being checked'
                    : 'not a regular file';
        fault({
            item: kind,
            path: rel,
            line: null,
            kind: r.kind === 'symlink' ? 'symlink' : r.kind === 'too_large' ? 'too_large' : 'unreadable',
            message: `${kind === 'run' ? 'run' : kind === 'receipt' ? 'receipt' : 'agent'} ${id}: ${why}`,
            severity: 'error',
            id,
        });
        return undefined;
    };
    const crlf = (kind, rel, id, bytes, item) => {
        const line = crlfLine(bytes);
        if (line === 0)
            return;
        item.ok = false;
        fault({
            item: kind,
            path: rel,
            line,
            kind: 'crlf_line_endings',
            message: `${kind === 'run' ? 'run' : 'agent'} ${id}: lines end in CRLF from line ${line}: ${CRLF_REMEDY}`,
            severity: 'error',
            id,
        });
    };
    const checkHistory = (item, head) => {
        const base = baseFiles.get(item.path);
        if (base === undefined)
            return;
        const r = checkAppendOnly(base.bytes, head, item.kind === 'run' ? 'index' : 'seq');
        item.appendOnly = r.kind;
        if (r.ok)
            return;
        item.ok = false;
        item.status = r.kind;
        const who = item.kind === 'run' ? `run ${item.id}` : `agent ${item.id}`;
        const at = r.firstChangedSeq === null
            ? ''
            : ` (first changed ${item.kind === 'run' ? 'index' : 'seq'} ${r.firstChangedSeq})`;
        fault({
            item: item.kind,
            path: item.path,
            line: r.line,
            kind: APPEND_FAULT[r.kind],
            message: `${who}: ${r.message}${r.kind === 'deleted' ? at : ''}; committed history must only be appended to`,
            severity: 'error',
            id: item.id,
        });
    };
    /**
     * Base files gone from their path: a rename when a file that is new in the
     * checkout holds the base's rows (identical bytes first, else as a prefix);
     * otherwise a deletion.
     */
    const newFileCache = new Map();
    const claimed = new Set();
    const renameTarget = (kind, base) => {
        const candidates = found[kind].filter((p) => !basePaths.has(p) && !claimed.has(p));
        const bytesOf = (p) => {
            if (!newFileCache.has(p)) {
                const r = nofollow_readUnder(root, p, undefined, checked);
                newFileCache.set(p, r.kind === 'file' ? r.bytes : null);
            }
            return newFileCache.get(p);
        };
        const exact = candidates.find((p) => bytesOf(p)?.equals(base));
        if (exact !== undefined)
            return exact;
        if (base.lastIndexOf(0x0a) < 0)
            return undefined; // no complete row to recognise it by
        return candidates.find((p) => {
            const b = bytesOf(p);
            return b !== null && checkAppendOnly(base, b).ok;
        });
    };
    const goneFromBase = (kind, seen) => {
        for (const [rel, b] of baseFiles) {
            if (b.kind !== kind || seen.has(rel))
                continue;
            const id = workspace_idOfPath(rel);
            const to = linked.has(rel) ? undefined : renameTarget(kind, b.bytes);
            if (to !== undefined) {
                claimed.add(to);
                report.items.push({
                    kind,
                    path: rel,
                    id,
                    steps: 0,
                    head: '',
                    ok: true,
                    status: `renamed to ${to}`,
                    appendOnly: 'renamed',
                    renamedTo: to,
                });
                continue;
            }
            const item = { kind, path: rel, id, steps: 0, head: '', ok: false, status: 'deleted' };
            checkHistory(item, undefined);
            report.items.push(item);
        }
    };
    if (on.journal) {
        const seen = new Set(found.journal);
        for (const rel of found.journal.filter(mine)) {
            const id = workspace_idOfPath(rel);
            const bytes = readItem('journal', rel, id);
            if (bytes === undefined) {
                report.items.push({ kind: 'journal', path: rel, id, steps: 0, head: '', ok: false, status: 'unreadable' });
                continue;
            }
            const expectedHead = options.expectedHeads?.[id];
            const r = verifyJournalBytes(bytes, expectedHead === undefined ? {} : { expectedHead });
            const item = {
                kind: 'journal',
                path: rel,
                id,
                steps: r.steps,
                head: r.head_hash,
                ok: r.ok,
                status: r.ok ? 'ok' : 'FAIL',
            };
            crlf('journal', rel, id, bytes, item);
            for (const f of r.errors) {
                fault({
                    item: 'journal',
                    path: rel,
                    line: f.kind === 'head_mismatch' && r.steps > 0 ? r.steps : f.line,
                    kind: f.kind,
                    message: `agent ${id}: ${f.kind}: ${f.message}`,
                    severity: 'error',
                    id,
                });
            }
            checkHistory(item, bytes);
            if (!item.ok && item.status === 'ok')
                item.status = 'FAIL';
            if (item.ok && isSafeId(id))
                report.heads[id] = r.head_hash;
            report.items.push(item);
        }
        goneFromBase('journal', seen);
        const pins = options.expectedHeads ?? {};
        const agents = new Set(found.journal.map(workspace_idOfPath));
        for (const agent of Object.keys(pins)) {
            // Each pin is judged once, by the shard its agent id falls in.
            if (agents.has(agent) || !mine(`pin:${agent}`))
                continue;
            fault({
                item: 'journal',
                path: options.expectedHeadsPath ?? '.',
                line: null,
                kind: 'head_mismatch',
                message: `agent ${agent}: a head is pinned (${pins[agent]}) but no journal for this agent was found`,
                severity: 'error',
                id: agent,
            });
        }
    }
    if (on.run) {
        const failFlagged = options.failOnFlaggedMutations !== false;
        const seen = new Set(found.run);
        for (const rel of found.run.filter(mine)) {
            const id = workspace_idOfPath(rel);
            const bytes = readItem('run', rel, id);
            if (bytes === undefined) {
                report.items.push({ kind: 'run', path: rel, id, steps: 0, head: '', ok: false, status: 'unreadable' });
                continue;
            }
            const r = readRunJournalBytes(bytes);
            const item = {
                kind: 'run',
                path: rel,
                id,
                steps: r.count,
                head: r.head_hash,
                ok: true,
                status: 'ok',
                mutations: r.mutation_count,
                flagged: r.flagged_indices.length,
            };
            crlf('run', rel, id, bytes, item);
            for (const f of r.errors) {
                // A flagged mutation is a finding about the run, not the file: it may be only a warning.
                const warn = f.kind === 'flagged_mutation' && !failFlagged;
                if (!warn)
                    item.ok = false;
                fault({
                    item: 'run',
                    path: rel,
                    line: f.line,
                    kind: f.kind,
                    message: `run ${id}: ${f.kind}${f.index === null ? '' : ` at index ${f.index}`}: ${f.message}`,
                    severity: warn ? 'warning' : 'error',
                    id,
                });
            }
            if (!item.ok)
                item.status = 'FAIL';
            else if (item.flagged)
                item.status = `ok (${item.flagged} flagged mutation${item.flagged === 1 ? '' : 's'})`;
            checkHistory(item, bytes);
            report.items.push(item);
        }
        goneFromBase('run', seen);
    }
    if (on.receipt) {
        const keys = options.publicKeys ?? [];
        for (const rel of found.receipt.filter(mine)) {
            let id = rel
                .split('/')
                .pop()
                .replace(/\.receipt\.(tar|tar\.gz|tgz)$/, '');
            const bytes = readItem('receipt', rel, id, DEFAULT_MAX_RECEIPT_BYTES);
            if (bytes === undefined) {
                report.items.push({ kind: 'receipt', path: rel, id, steps: 0, head: '', ok: false, status: 'unreadable' });
                continue;
            }
            const r = verifyReceipt(bytes, keys.length > 0 ? { publicKeys: keys } : {});
            try {
                id = loadReceipt(bytes).manifest.agent_id;
            }
            catch {
                /* a receipt that does not load keeps its file name; verifyReceipt reported why */
            }
            const item = {
                kind: 'receipt',
                path: rel,
                id,
                steps: r.steps,
                head: r.head_hash,
                ok: true,
                status: 'ok',
                signed: r.signed,
                keyId: r.key_id,
            };
            for (const f of r.errors) {
                // One meaning of "signed" (signatureVerdict): a signature nobody checked fails, named as such.
                const untrusted = f.kind === 'no_trusted_key' && keys.length === 0;
                item.ok = false;
                const where = f.member === undefined ? '' : ` (${f.member}${f.line === undefined ? '' : `:${f.line}`})`;
                fault({
                    item: 'receipt',
                    path: rel,
                    line: null,
                    kind: untrusted ? 'signature_not_checked' : f.kind,
                    message: untrusted
                        ? `receipt ${id}: ${signatureVerdict(r, keys.length).text.replace('--public-key FILE', 'public-keys')}`
                        : `receipt ${id}: ${f.kind}: ${f.message}${where}`,
                    severity: 'error',
                    id,
                });
            }
            const onlyUnchecked = r.errors.length > 0 && r.errors.every((f) => f.kind === 'no_trusted_key') && keys.length === 0;
            if (!item.ok)
                item.status = onlyUnchecked ? 'signature NOT checked' : 'FAIL';
            else if (r.signed)
                item.status = `signed (${r.key_id})`;
            else
                item.status = 'ok (unsigned)';
            report.items.push(item);
        }
    }
    for (const i of report.items) {
        if (i.ok)
            report.verified++;
        else
            report.failed++;
    }
    report.ok = report.failed === 0 && !report.faults.some((f) => f.severity === 'error');
    return report;
}

;// CONCATENATED MODULE: ./src/check/json.ts

function checkReportJson(report) {
    return {
        ok: report.ok,
        base: report.base,
        fetched_base: report.fetchedBase,
        fetched_blobs: report.fetchedBlobs,
        verified: report.verified,
        failed: report.failed,
        heads: report.heads,
        matched: report.matched,
        shard: report.shard,
        trusted_keys: report.trustedKeys.map((k) => ({ key_id: k.keyId, source: k.source })),
        items: report.items.map((i) => {
            const o = {
                kind: i.kind,
                path: i.path,
                id: i.id,
                steps: i.steps,
                head: i.head,
                ok: i.ok,
                status: i.status,
            };
            if (i.appendOnly !== undefined)
                o['append_only'] = i.appendOnly;
            if (i.renamedTo !== undefined)
                o['renamed_to'] = i.renamedTo;
            if (i.signed !== undefined)
                o['signed'] = i.signed;
            if (i.keyId !== undefined)
                o['key_id'] = i.keyId;
            if (i.mutations !== undefined)
                o['mutations'] = i.mutations;
            if (i.flagged !== undefined)
                o['flagged'] = i.flagged;
            return o;
        }),
        faults: report.faults.map((f) => {
            const o = {
                item: f.item,
                path: f.path,
                line: f.line,
                kind: f.kind,
                message: f.message,
                severity: f.severity,
            };
            if (f.id !== undefined)
                o['id'] = f.id;
            return o;
        }),
    };
}
function isObj(v) {
    return typeof v === 'object' && v !== null && !Array.isArray(v);
}
const KINDS = new Set(['journal', 'run', 'receipt']);
/** Reads a report document back; an InputError naming `source` and the first thing wrong. */
function checkReportFromJson(doc, source, root = '') {
    const bad = (what) => {
        throw new InputError(`${source}: not a stepchain check report: ${what}`);
    };
    if (!isObj(doc))
        return bad('not a JSON object');
    const str = (o, k, where) => typeof o[k] === 'string' ? o[k] : bad(`${where}.${k} is not a string`);
    const int = (o, k, where) => Number.isSafeInteger(o[k]) && o[k] >= 0 ? o[k] : bad(`${where}.${k} is not a count`);
    const bool = (o, k, where) => typeof o[k] === 'boolean' ? o[k] : bad(`${where}.${k} is not true or false`);
    const arr = (o, k) => (Array.isArray(o[k]) ? o[k] : bad(`${k} is not a list`));
    const items = arr(doc, 'items').map((v, n) => {
        const w = `items[${n}]`;
        if (!isObj(v))
            return bad(`${w} is not an object`);
        const kind = str(v, 'kind', w);
        if (!KINDS.has(kind))
            bad(`${w}.kind is not journal, run or receipt`);
        const item = {
            kind: kind,
            path: str(v, 'path', w),
            id: str(v, 'id', w),
            steps: int(v, 'steps', w),
            head: str(v, 'head', w),
            ok: bool(v, 'ok', w),
            status: str(v, 'status', w),
        };
        if (typeof v['append_only'] === 'string')
            item.appendOnly = v['append_only'];
        if (typeof v['renamed_to'] === 'string')
            item.renamedTo = v['renamed_to'];
        if (typeof v['signed'] === 'boolean')
            item.signed = v['signed'];
        if (typeof v['key_id'] === 'string' || v['key_id'] === null)
            item.keyId = v['key_id'];
        if (Number.isSafeInteger(v['mutations']))
            item.mutations = v['mutations'];
        if (Number.isSafeInteger(v['flagged']))
            item.flagged = v['flagged'];
        return item;
    });
    const faults = arr(doc, 'faults').map((v, n) => {
        const w = `faults[${n}]`;
        if (!isObj(v))
            return bad(`${w} is not an object`);
        const item = str(v, 'item', w);
        if (!KINDS.has(item))
            bad(`${w}.item is not journal, run or receipt`);
        const severity = str(v, 'severity', w);
        if (severity !== 'error' && severity !== 'warning')
            bad(`${w}.severity is not error or warning`);
        const line = v['line'];
        if (line !== null && !(Number.isSafeInteger(line) && line > 0))
            bad(`${w}.line is not a line number`);
        const f = {
            item: item,
            path: str(v, 'path', w),
            line: line,
            kind: str(v, 'kind', w),
            message: str(v, 'message', w),
            severity: severity,
        };
        if (typeof v['id'] === 'string')
            f.id = v['id'];
        return f;
    });
    const heads = {};
    if (!isObj(doc['heads']))
        bad('heads is not an object');
    for (const [k, v] of Object.entries(doc['heads']))
        heads[k] = typeof v === 'string' ? v : bad(`heads.${k}`);
    let shard = null;
    if (doc['shard'] !== null && doc['shard'] !== undefined) {
        const s = isObj(doc['shard']) ? doc['shard'] : bad('shard is not an object');
        shard = { index: int(s, 'index', 'shard'), count: int(s, 'count', 'shard') };
    }
    const m = isObj(doc['matched']) ? doc['matched'] : {};
    const matched = { journal: 0, run: 0, receipt: 0 };
    for (const k of ['journal', 'run', 'receipt'])
        if (Number.isSafeInteger(m[k]))
            matched[k] = m[k];
    const trustedKeys = Array.isArray(doc['trusted_keys'])
        ? doc['trusted_keys']
            .filter(isObj)
            .map((k) => ({ keyId: String(k['key_id'] ?? ''), source: String(k['source'] ?? '') }))
        : [];
    const base = doc['base'];
    if (base !== null && typeof base !== 'string')
        bad('base is not a commit id or null');
    return {
        ok: bool(doc, 'ok', 'report'),
        root,
        base: base,
        fetchedBase: doc['fetched_base'] === true,
        fetchedBlobs: Number.isSafeInteger(doc['fetched_blobs']) ? doc['fetched_blobs'] : 0,
        verified: int(doc, 'verified', 'report'),
        failed: int(doc, 'failed', 'report'),
        heads,
        items,
        faults,
        matched,
        shard,
        trustedKeys,
    };
}
/**
 * The shards' reports as one: every shard of one count present exactly once,
 * all checked against the same base; a missing, repeated or mismatched shard is
 * a fault (the merged check fails), never silently a smaller check.
 */
function mergeShardReports(reports, root = '') {
    const faults = [];
    const shardFault = (path, kind, message) => {
        faults.push({ item: 'journal', path, line: null, kind, message, severity: 'error' });
    };
    const count = reports.find((r) => r.report.shard !== null)?.report.shard?.count ?? 1;
    const byIndex = new Map();
    const base = reports[0]?.report.base ?? null;
    for (const { source, report } of reports) {
        const s = report.shard ?? { index: 0, count: 1 };
        if (s.count !== count)
            shardFault(source, 'shard_mismatch', `${source}: shard ${s.index + 1} of ${s.count}, expected a shard of ${count}`);
        else if (byIndex.has(s.index))
            shardFault(source, 'shard_repeated', `${source}: shard ${s.index + 1} of ${count} is also in ${byIndex.get(s.index)}`);
        else
            byIndex.set(s.index, source);
        if (report.base !== base)
            shardFault(source, 'shard_mismatch', `${source}: checked against base ${report.base ?? 'none'}, not ${base ?? 'none'}`);
    }
    for (let i = 0; i < count; i++)
        if (!byIndex.has(i))
            shardFault('.', 'shard_missing', `shard ${i + 1} of ${count} sent no report (did its job fail before the check?)`);
    if (reports.length === 0)
        shardFault('.', 'shard_missing', 'no shard reports were found');
    const merged = {
        ok: true,
        root,
        base,
        fetchedBase: reports.some((r) => r.report.fetchedBase),
        fetchedBlobs: reports.reduce((n, r) => n + r.report.fetchedBlobs, 0),
        verified: 0,
        failed: 0,
        heads: {},
        items: reports.flatMap((r) => r.report.items),
        faults: [...faults, ...reports.flatMap((r) => r.report.faults)],
        matched: reports[0]?.report.matched ?? { journal: 0, run: 0, receipt: 0 },
        shard: null,
        trustedKeys: reports[0]?.report.trustedKeys ?? [],
    };
    for (const r of reports)
        Object.assign(merged.heads, r.report.heads);
    for (const i of merged.items) {
        if (i.ok)
            merged.verified++;
        else
            merged.failed++;
    }
    merged.ok = merged.failed === 0 && !merged.faults.some((f) => f.severity === 'error');
    return merged;
}

;// CONCATENATED MODULE: ./src/check/empty.ts
/**
 * A check that found nothing does not say OK. Messages (one line each) for the
 * patterns the user gave that matched no file, and for a check with nothing in
 * it at all; the CLI fails on them (unless `--allow-empty`), the Action applies
 * its `if-no-files-found` input.
 */
const NOUN = { journal: 'journals', run: 'runs', receipt: 'receipts' };
function emptyFindings(report, given) {
    const out = [];
    for (const kind of ['journal', 'run', 'receipt']) {
        const patterns = given[kind];
        if (patterns !== undefined && patterns.length > 0 && report.matched[kind] === 0)
            out.push(`${NOUN[kind]}: ${patterns.join(', ')} matched no file`);
    }
    const matched = report.matched.journal + report.matched.run + report.matched.receipt;
    if (out.length === 0 && report.items.length === 0 && matched === 0)
        out.push('nothing was checked: no journal, run journal or receipt was found');
    return out;
}

;// CONCATENATED MODULE: ./src/check/export.ts








/**
 * Receipts for a repository's committed journals, one per agent (the Action's
 * export mode): a full receipt, or a published (redacted) one when fields to
 * redact are given. A journal that does not verify gets no receipt and a fault.
 * Nothing is read through a symbolic link below the root: a linked journal is a
 * fault, and blobs come from the CAS only as regular files (`WorkspaceCas`).
 */
/** The checkout's CAS, read without following a link anywhere below the root. */
class WorkspaceCas extends Cas {
    root;
    constructor(root) {
        super(casDir(root), false);
        this.root = root;
    }
    has(digest) {
        return nofollow_lstatUnder(this.root, external_node_path_default().relative(this.root, this.pathOf(digest))).kind === 'file';
    }
    get(digest) {
        const r = nofollow_readUnder(this.root, external_node_path_default().relative(this.root, this.pathOf(digest)), DEFAULT_MAX_RECEIPT_BYTES);
        return r.kind === 'file' ? r.bytes : undefined;
    }
}
function exportAllReceipts(options) {
    const root = path.resolve(options.root);
    const scan = scanFiles(root, globSet(options.journals ?? DEFAULT_JOURNALS));
    const found = scan.files;
    const byAgent = new Map();
    for (const rel of found)
        if (!byAgent.has(idOfPath(rel)))
            byAgent.set(idOfPath(rel), rel);
    const agents = options.agents && options.agents.length > 0 ? options.agents : [...byAgent.keys()];
    for (const a of agents) {
        if (!byAgent.has(a))
            throw new InputError(`agent ${a}: no journal found (looked for ${[options.journals ?? DEFAULT_JOURNALS].flat().join(', ')})`);
    }
    mkdirSync(options.outDir, { recursive: true });
    const result = { receipts: [], faults: [] };
    for (const l of scan.links) {
        if (l.severity !== 'error')
            continue;
        result.faults.push({
            item: 'journal',
            path: l.path,
            line: null,
            kind: 'symlink',
            message: `${l.path} is a symbolic link: stepchain never follows a link in the checkout; no receipt`,
            severity: 'error',
        });
    }
    const cas = new WorkspaceCas(root);
    for (const agent of agents) {
        const rel = byAgent.get(agent);
        const journal = path.join(root, rel);
        const st = lstatUnder(root, rel);
        if (st.kind !== 'file') {
            result.faults.push({
                item: 'journal',
                path: rel,
                line: null,
                kind: st.kind === 'symlink' ? 'symlink' : 'unreadable',
                message: `agent ${agent}: no receipt: ${st.kind === 'symlink' ? `${st.at} is a symbolic link` : 'not a regular file'}`,
                severity: 'error',
                id: agent,
            });
            continue;
        }
        const file = path.join(options.outDir, `${agent}.receipt.tar`);
        const common = {
            agentId: agent,
            ...(options.signKey === undefined ? {} : { signKey: options.signKey }),
            ...(options.now === undefined ? {} : { now: options.now }),
            gzip: false,
            cas,
        };
        try {
            if (options.redact) {
                const r = buildPublishedReceipt(journal, { ...common, optIn: true, redact: options.redact });
                writeFileAtomic(file, r.bytes);
                result.receipts.push({
                    agent_id: agent,
                    journal: rel,
                    file,
                    head_hash: r.published_head,
                    steps: r.steps,
                    signed: r.signed,
                    key_id: r.key_id,
                    original_head: r.original_head,
                    redacted: r.redacted,
                });
            }
            else {
                const r = buildReceipt(journal, common);
                writeFileAtomic(file, r.bytes);
                result.receipts.push({
                    agent_id: agent,
                    journal: rel,
                    file,
                    head_hash: r.manifest.head_hash,
                    steps: r.manifest.steps,
                    signed: r.signed,
                    key_id: r.key_id,
                });
            }
        }
        catch (e) {
            if (!(e instanceof StepchainError))
                throw e;
            // The library names the absolute file and line; annotate at the repository path.
            const m = /:(\d+): /.exec(e.message.replace(journal, rel));
            result.faults.push({
                item: 'journal',
                path: rel,
                line: m ? Number(m[1]) : null,
                kind: e instanceof InputError ? 'input_error' : 'export_refused',
                message: `agent ${agent}: no receipt: ${e.message.split(journal).join(rel)}`,
                severity: 'error',
                id: agent,
            });
        }
    }
    return result;
}

;// CONCATENATED MODULE: ./src/check/heads.ts




/** Pinned heads: a JSON object `{agent_id: head}` (e.g. collected from signed receipts). */
function parseExpectedHeads(bytes, source) {
    let v;
    try {
        v = parseBytes(bytes);
    }
    catch (e) {
        throw new errors_InputError(`${source}: not JSON: ${e.message}`);
    }
    if (!isJsonObject(v))
        throw new errors_InputError(`${source}: expected a JSON object {agent_id: head}`);
    const heads = {};
    for (const [agent, head] of Object.entries(v)) {
        assertSafeId(agent, `agent id in ${source}`);
        if (!isSha256Hex(head))
            throw new errors_InputError(`${source}: the head of ${agent} is not 64 lowercase hex digits`);
        heads[agent] = head;
    }
    return heads;
}

;// CONCATENATED MODULE: ./src/report/client/page-script.generated.ts
// Generated by scripts/build-page.mjs from src/report/client/main.ts: do not edit, not committed.
const page_script_generated_PAGE_SCRIPT = "\"use strict\";\n(() => {\n  var __defProp = Object.defineProperty;\n  var __defNormalProp = (obj, key, value) => key in obj ? __defProp(obj, key, { enumerable: true, configurable: true, writable: true, value }) : obj[key] = value;\n  var __publicField = (obj, key, value) => __defNormalProp(obj, typeof key !== \"symbol\" ? key + \"\" : key, value);\n\n  // src/canonical/value.ts\n  var JsonFloat = class {\n    constructor(value) {\n      __publicField(this, \"value\", value);\n    }\n  };\n  function isJsonObject(v) {\n    return typeof v === \"object\" && v !== null && !Array.isArray(v) && !(v instanceof JsonFloat) && !(v instanceof Map);\n  }\n  function numericValue(v) {\n    if (typeof v === \"number\") return v;\n    if (typeof v === \"bigint\") return Number(v);\n    if (v instanceof JsonFloat) return v.value;\n    return void 0;\n  }\n  function isJsonInteger(v) {\n    return typeof v === \"number\" && Number.isInteger(v) || typeof v === \"bigint\";\n  }\n  function setKey(obj, key, value) {\n    if (key === \"__proto__\") {\n      Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });\n    } else {\n      obj[key] = value;\n    }\n  }\n\n  // src/canonical/float-repr.ts\n  function pythonFloatRepr(x) {\n    if (Number.isNaN(x)) return \"NaN\";\n    if (x === Infinity) return \"Infinity\";\n    if (x === -Infinity) return \"-Infinity\";\n    if (x === 0) return Object.is(x, -0) ? \"-0.0\" : \"0.0\";\n    const sign = x < 0 ? \"-\" : \"\";\n    const s = String(Math.abs(x));\n    const ei = s.indexOf(\"e\");\n    const mantissa = ei < 0 ? s : s.slice(0, ei);\n    const shift = ei < 0 ? 0 : Number(s.slice(ei + 1));\n    const dot = mantissa.indexOf(\".\");\n    const intPart = dot < 0 ? mantissa : mantissa.slice(0, dot);\n    const all = dot < 0 ? mantissa : intPart + mantissa.slice(dot + 1);\n    let lead = 0;\n    while (lead < all.length - 1 && all.charCodeAt(lead) === 48) lead++;\n    let end = all.length;\n    while (end > lead + 1 && all.charCodeAt(end - 1) === 48) end--;\n    const digits = all.slice(lead, end);\n    const exp = intPart.length + shift - lead - 1;\n    if (exp >= -4 && exp < 16) {\n      if (exp >= 0) {\n        const whole = digits.length > exp + 1 ? digits.slice(0, exp + 1) : digits.padEnd(exp + 1, \"0\");\n        const frac = digits.length > exp + 1 ? digits.slice(exp + 1) : \"0\";\n        return `${sign}${whole}.${frac}`;\n      }\n      return `${sign}0.${\"0\".repeat(-exp - 1)}${digits}`;\n    }\n    const m = digits.length === 1 ? digits : `${digits[0]}.${digits.slice(1)}`;\n    const e = `${exp < 0 ? \"-\" : \"+\"}${String(Math.abs(exp)).padStart(2, \"0\")}`;\n    return `${sign}${m}e${e}`;\n  }\n\n  // src/canonical/key-order.ts\n  function compareCodePoints(a, b) {\n    const n = Math.min(a.length, b.length);\n    let i = 0;\n    while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;\n    if (i === n) return a.length - b.length;\n    const ca = a.charCodeAt(i);\n    const cb = b.charCodeAt(i);\n    if (ca < 55296 && cb < 55296) return ca - cb;\n    const low = (c) => c >= 56320 && c <= 57343;\n    if (i > 0 && (low(ca) || low(cb))) {\n      const prev = a.charCodeAt(i - 1);\n      if (prev >= 55296 && prev <= 56319) i--;\n    }\n    return (a.codePointAt(i) ?? 0) - (b.codePointAt(i) ?? 0);\n  }\n\n  // src/canonical/encode.ts\n  var CanonicalEncodeError = class extends Error {\n    constructor() {\n      super(...arguments);\n      __publicField(this, \"name\", \"CanonicalEncodeError\");\n    }\n  };\n  var MAX_DEPTH = 4096;\n  var SHORT_ESCAPES = {\n    34: '\\\\\"',\n    92: \"\\\\\\\\\",\n    10: \"\\\\n\",\n    13: \"\\\\r\",\n    9: \"\\\\t\",\n    8: \"\\\\b\",\n    12: \"\\\\f\"\n  };\n  var PLAIN_ASCII = /^[\\x20\\x21\\x23-\\x5b\\x5d-\\x7e]*$/;\n  function encodeString(s) {\n    if (PLAIN_ASCII.test(s)) return `\"${s}\"`;\n    let out = '\"';\n    let run = 0;\n    for (let i = 0; i < s.length; i++) {\n      const c = s.charCodeAt(i);\n      if (c >= 32 && c <= 126 && c !== 34 && c !== 92) continue;\n      out += s.slice(run, i);\n      out += SHORT_ESCAPES[c] ?? `\\\\u${c.toString(16).padStart(4, \"0\")}`;\n      run = i + 1;\n    }\n    return `${out}${s.slice(run)}\"`;\n  }\n  function encodeNumber(n, allowNonFinite) {\n    if (Number.isInteger(n)) {\n      return Number.isSafeInteger(n) ? String(n === 0 ? 0 : n) : BigInt(n).toString();\n    }\n    if (!Number.isFinite(n) && !allowNonFinite) {\n      throw new CanonicalEncodeError(`${String(n)} is not allowed in a written value (JSON has no NaN or Infinity)`);\n    }\n    return pythonFloatRepr(n);\n  }\n  function encode(value, options = {}) {\n    const sortKeys = options.sortKeys ?? true;\n    const pretty = options.separators === \"pretty\";\n    const itemSep = pretty ? \", \" : \",\";\n    const keySep = pretty ? \": \" : \":\";\n    const allowNonFinite = options.allowNonFinite ?? false;\n    const entriesOf = (obj) => {\n      const entries = obj instanceof Map ? [...obj] : Object.entries(obj);\n      if (sortKeys) entries.sort((x, y) => compareCodePoints(x[0], y[0]));\n      return entries;\n    };\n    const walk = (v, depth) => {\n      switch (typeof v) {\n        case \"string\":\n          return encodeString(v);\n        case \"number\":\n          return encodeNumber(v, allowNonFinite);\n        case \"bigint\":\n          return v.toString();\n        case \"boolean\":\n          return v ? \"true\" : \"false\";\n        case \"object\": {\n          if (v === null) return \"null\";\n          if (depth > MAX_DEPTH) throw new CanonicalEncodeError(`value nested deeper than ${MAX_DEPTH} levels`);\n          if (v instanceof JsonFloat) {\n            if (!Number.isFinite(v.value) && !allowNonFinite) {\n              throw new CanonicalEncodeError(\n                `${String(v.value)} is not allowed in a written value (JSON has no NaN or Infinity)`\n              );\n            }\n            return pythonFloatRepr(v.value);\n          }\n          if (Array.isArray(v)) {\n            let out2 = \"[\";\n            for (let i = 0; i < v.length; i++) {\n              if (i > 0) out2 += itemSep;\n              out2 += walk(v[i], depth + 1);\n            }\n            return `${out2}]`;\n          }\n          let out = \"{\";\n          let first = true;\n          for (const [k, item] of entriesOf(v)) {\n            if (item === void 0) continue;\n            if (!first) out += itemSep;\n            first = false;\n            out += encodeString(k) + keySep + walk(item, depth + 1);\n          }\n          return `${out}}`;\n        }\n        default:\n          throw new CanonicalEncodeError(`a ${typeof v} has no JSON encoding`);\n      }\n    };\n    return walk(value, 0);\n  }\n  function canonical(value) {\n    return encode(value);\n  }\n  function canonicalOfRead(value) {\n    return encode(value, { allowNonFinite: true });\n  }\n\n  // src/canonical/parse.ts\n  var JsonParseError = class extends Error {\n    constructor(reason, column) {\n      super(`${reason} at column ${column}`);\n      __publicField(this, \"reason\", reason);\n      __publicField(this, \"column\", column);\n      __publicField(this, \"name\", \"JsonParseError\");\n    }\n  };\n  var MAX_DEPTH2 = 4096;\n  var MAX_INT_DIGITS = 4300;\n  var NUMBER = /-?(?:0|[1-9][0-9]*)(\\.[0-9]+)?([eE][-+]?[0-9]+)?/y;\n  var utf8 = new TextDecoder(\"utf-8\", { fatal: true, ignoreBOM: true });\n  function decodeUtf8(bytes) {\n    try {\n      return utf8.decode(bytes);\n    } catch {\n      throw new JsonParseError(\"invalid UTF-8\", 1);\n    }\n  }\n  function parse(text, options = {}) {\n    const asMap = options.objects === \"map\";\n    let i = 0;\n    const n = text.length;\n    const fail = (reason, at = i) => {\n      throw new JsonParseError(reason, at + 1);\n    };\n    const skipWs = () => {\n      while (i < n) {\n        const c = text.charCodeAt(i);\n        if (c === 32 || c === 10 || c === 13 || c === 9) i++;\n        else break;\n      }\n    };\n    const parseString = () => {\n      const start = ++i;\n      let out = \"\";\n      let run = start;\n      for (; ; ) {\n        if (i >= n) fail(\"unterminated string\", start - 1);\n        const c = text.charCodeAt(i);\n        if (c === 34) {\n          out += text.slice(run, i);\n          i++;\n          return out;\n        }\n        if (c < 32) fail(\"invalid control character in string\");\n        if (c !== 92) {\n          i++;\n          continue;\n        }\n        out += text.slice(run, i);\n        const e = text.charCodeAt(i + 1);\n        switch (e) {\n          case 34:\n            out += '\"';\n            break;\n          case 92:\n            out += \"\\\\\";\n            break;\n          case 47:\n            out += \"/\";\n            break;\n          case 98:\n            out += \"\\b\";\n            break;\n          case 102:\n            out += \"\\f\";\n            break;\n          case 110:\n            out += \"\\n\";\n            break;\n          case 114:\n            out += \"\\r\";\n            break;\n          case 116:\n            out += \"\t\";\n            break;\n          case 117: {\n            const hex = text.slice(i + 2, i + 6);\n            if (!/^[0-9a-fA-F]{4}$/.test(hex)) fail(\"invalid \\\\uXXXX escape\");\n            out += String.fromCharCode(parseInt(hex, 16));\n            i += 4;\n            break;\n          }\n          default:\n            fail(\"invalid escape\");\n        }\n        i += 2;\n        run = i;\n      }\n    };\n    const parseNumber = () => {\n      NUMBER.lastIndex = i;\n      const m = NUMBER.exec(text);\n      if (m === null) return fail(\"expecting value\");\n      const token = m[0];\n      const start = i;\n      i += token.length;\n      if (m[1] !== void 0 || m[2] !== void 0) {\n        const f = Number(token);\n        return Number.isInteger(f) || Object.is(f, -0) || !Number.isFinite(f) ? new JsonFloat(f) : f;\n      }\n      const digits = token.length - (token.charCodeAt(0) === 45 ? 1 : 0);\n      if (digits <= 15) return Number(token);\n      if (digits > MAX_INT_DIGITS) fail(`integer of ${digits} digits exceeds the ${MAX_INT_DIGITS}-digit limit`, start);\n      const big = BigInt(token);\n      return big >= BigInt(Number.MIN_SAFE_INTEGER) && big <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(big) : big;\n    };\n    const parseValue = (depth) => {\n      if (depth > MAX_DEPTH2) fail(`nested deeper than ${MAX_DEPTH2} levels`);\n      skipWs();\n      const c = text.charCodeAt(i);\n      switch (c) {\n        case 34:\n          return parseString();\n        case 123: {\n          i++;\n          const obj = {};\n          const map = /* @__PURE__ */ new Map();\n          skipWs();\n          if (text.charCodeAt(i) === 125) {\n            i++;\n            return asMap ? map : obj;\n          }\n          for (; ; ) {\n            skipWs();\n            if (text.charCodeAt(i) !== 34) fail(\"expecting property name enclosed in double quotes\");\n            const key = parseString();\n            skipWs();\n            if (text.charCodeAt(i) !== 58) fail(\"expecting ':' delimiter\");\n            i++;\n            const value2 = parseValue(depth + 1);\n            if (asMap) map.set(key, value2);\n            else setKey(obj, key, value2);\n            skipWs();\n            const d = text.charCodeAt(i);\n            if (d === 44) {\n              i++;\n              continue;\n            }\n            if (d === 125) {\n              i++;\n              return asMap ? map : obj;\n            }\n            fail(\"expecting ',' delimiter\");\n          }\n        }\n        case 91: {\n          i++;\n          const arr = [];\n          skipWs();\n          if (text.charCodeAt(i) === 93) {\n            i++;\n            return arr;\n          }\n          for (; ; ) {\n            arr.push(parseValue(depth + 1));\n            skipWs();\n            const d = text.charCodeAt(i);\n            if (d === 44) {\n              i++;\n              continue;\n            }\n            if (d === 93) {\n              i++;\n              return arr;\n            }\n            fail(\"expecting ',' delimiter\");\n          }\n        }\n        case 110:\n          return literal(\"null\", null);\n        case 116:\n          return literal(\"true\", true);\n        case 102:\n          return literal(\"false\", false);\n        case 78:\n          return literal(\"NaN\", new JsonFloat(NaN));\n        case 73:\n          return literal(\"Infinity\", new JsonFloat(Infinity));\n        case 45:\n          if (text.startsWith(\"-Infinity\", i)) return literal(\"-Infinity\", new JsonFloat(-Infinity));\n          return parseNumber();\n        default:\n          if (c >= 48 && c <= 57) return parseNumber();\n          return fail(\"expecting value\");\n      }\n    };\n    const literal = (word, value2) => {\n      if (!text.startsWith(word, i)) fail(\"expecting value\");\n      i += word.length;\n      return value2;\n    };\n    const value = parseValue(0);\n    skipWs();\n    if (i < n) fail(\"extra data\");\n    return value;\n  }\n\n  // src/report/client/display.ts\n  var SHORT = {\n    34: '\\\\\"',\n    92: \"\\\\\\\\\",\n    10: \"\\\\n\",\n    13: \"\\\\r\",\n    9: \"\\\\t\",\n    8: \"\\\\b\",\n    12: \"\\\\f\"\n  };\n  function displayString(s) {\n    let out = '\"';\n    for (let i = 0; i < s.length; i++) {\n      const c = s.charCodeAt(i);\n      const hi = c >= 55296 && c <= 56319;\n      const lo = c >= 56320 && c <= 57343;\n      if (hi && i + 1 < s.length && s.charCodeAt(i + 1) >= 56320 && s.charCodeAt(i + 1) <= 57343) {\n        out += s.slice(i, i + 2);\n        i++;\n      } else if (SHORT[c] !== void 0) out += SHORT[c];\n      else if (c < 32 || c === 127 || hi || lo || c === 8232 || c === 8233)\n        out += `\\\\u${c.toString(16).padStart(4, \"0\")}`;\n      else out += s[i];\n    }\n    return `${out}\"`;\n  }\n  function display(v, indent = 2) {\n    const walk = (x, pad) => {\n      if (x === void 0) return \"(absent)\";\n      if (typeof x === \"string\") return displayString(x);\n      if (x instanceof JsonFloat) return pythonFloatRepr(x.value);\n      if (x === null || typeof x !== \"object\") return canonicalOfRead(x);\n      const inner = indent > 0 ? pad + \" \".repeat(indent) : \"\";\n      const sep = indent > 0 ? \",\\n\" : \", \";\n      let out = \"\";\n      if (Array.isArray(x)) {\n        if (x.length === 0) return \"[]\";\n        for (let i = 0; i < x.length; i++) out += (i > 0 ? sep : \"\") + inner + walk(x[i], inner);\n        return indent > 0 ? `[\n${out}\n${pad}]` : `[${out}]`;\n      }\n      const pairs = x instanceof Map ? [...x] : Object.entries(x);\n      if (pairs.length === 0) return \"{}\";\n      for (let i = 0; i < pairs.length; i++)\n        out += `${i > 0 ? sep : \"\"}${inner}${displayString(pairs[i][0])}: ${walk(pairs[i][1], inner)}`;\n      return indent > 0 ? `{\n${out}\n${pad}}` : `{${out}}`;\n    };\n    try {\n      return walk(v, \"\");\n    } catch (e) {\n      if (e instanceof RangeError) return \"(nested too deeply to lay out here: see the raw line)\";\n      throw e;\n    }\n  }\n  function fieldText(v) {\n    return v === void 0 ? \"\" : typeof v === \"string\" ? v : display(v, 0);\n  }\n  function orderedRow(text) {\n    try {\n      const v = parse(text, { objects: \"map\" });\n      return v instanceof Map ? v : null;\n    } catch {\n      return null;\n    }\n  }\n  function preview(s, max) {\n    return s.length <= max ? s : `${s.slice(0, max - 1)}\\u2026`;\n  }\n\n  // node_modules/@noble/hashes/_u64.js\n  var U32_MASK64 = /* @__PURE__ */ (() => BigInt(2 ** 32 - 1))();\n  var _32n = /* @__PURE__ */ BigInt(32);\n  function fromBig(n, le = false) {\n    if (le)\n      return { h: Number(n & U32_MASK64), l: Number(n >> _32n & U32_MASK64) };\n    return { h: Number(n >> _32n & U32_MASK64) | 0, l: Number(n & U32_MASK64) | 0 };\n  }\n  function split(lst, le = false) {\n    const len = lst.length;\n    let Ah = new Uint32Array(len);\n    let Al = new Uint32Array(len);\n    for (let i = 0; i < len; i++) {\n      const { h, l } = fromBig(lst[i], le);\n      [Ah[i], Al[i]] = [h, l];\n    }\n    return [Ah, Al];\n  }\n  var fromNumH = (n) => n / 2 ** 32 | 0;\n  var fromNumL = (n) => n >>> 0;\n  function setU64FromNum(view, byteOffset, n, isLE) {\n    const h = fromNumH(n);\n    const l = fromNumL(n);\n    view.setUint32(byteOffset, isLE ? l : h, isLE);\n    view.setUint32(byteOffset + 4, isLE ? h : l, isLE);\n  }\n  var shrSH = (h, _l, s) => h >>> s;\n  var shrSL = (h, l, s) => h << 32 - s | l >>> s;\n  var rotrSH = (h, l, s) => h >>> s | l << 32 - s;\n  var rotrSL = (h, l, s) => h << 32 - s | l >>> s;\n  var rotrBH = (h, l, s) => h << 64 - s | l >>> s - 32;\n  var rotrBL = (h, l, s) => h >>> s - 32 | l << 64 - s;\n  function add(Ah, Al, Bh, Bl) {\n    const l = (Al >>> 0) + (Bl >>> 0);\n    return { h: Ah + Bh + (l / 2 ** 32 | 0) | 0, l: l | 0 };\n  }\n  var add3L = (Al, Bl, Cl) => (Al >>> 0) + (Bl >>> 0) + (Cl >>> 0);\n  var add3H = (low, Ah, Bh, Ch) => Ah + Bh + Ch + (low / 2 ** 32 | 0) | 0;\n  var add4L = (Al, Bl, Cl, Dl) => (Al >>> 0) + (Bl >>> 0) + (Cl >>> 0) + (Dl >>> 0);\n  var add4H = (low, Ah, Bh, Ch, Dh) => Ah + Bh + Ch + Dh + (low / 2 ** 32 | 0) | 0;\n  var add5L = (Al, Bl, Cl, Dl, El) => (Al >>> 0) + (Bl >>> 0) + (Cl >>> 0) + (Dl >>> 0) + (El >>> 0);\n  var add5H = (low, Ah, Bh, Ch, Dh, Eh) => Ah + Bh + Ch + Dh + Eh + (low / 2 ** 32 | 0) | 0;\n\n  // node_modules/@noble/hashes/utils.js\n  function isBytes(a) {\n    return a instanceof Uint8Array || ArrayBuffer.isView(a) && a.constructor.name === \"Uint8Array\" && \"BYTES_PER_ELEMENT\" in a && a.BYTES_PER_ELEMENT === 1;\n  }\n  var atitle = (title) => title ? `\"${title}\" ` : \"\";\n  function anumber(n, title = \"\") {\n    if (typeof n !== \"number\")\n      throw new TypeError(atitle(title) + \"expected number, got \" + typeof n);\n    if (!Number.isSafeInteger(n) || n < 0)\n      throw new RangeError(atitle(title) + \"expected integer >= 0, got \" + n);\n    return n;\n  }\n  function abytes(value, length, title = \"\") {\n    if (isBytes(value) && (length === void 0 || value.length === length))\n      return value;\n    if (length !== void 0)\n      anumber(length, \"length\");\n    const bytes = isBytes(value);\n    const ofLen = length !== void 0 ? ` of length ${length}` : \"\";\n    const got = bytes ? `length=${value.length}` : `type=${typeof value}`;\n    const message = atitle(title) + \"expected Uint8Array\" + ofLen + \", got \" + got;\n    if (!bytes)\n      throw new TypeError(message);\n    throw new RangeError(message);\n  }\n  var aobject = (value, label) => {\n    if (value === null || typeof value !== \"object\" || Array.isArray(value))\n      throw new TypeError((label === \"object\" ? \"\" : `\"${label}\" `) + \"expected object, got type=\" + typeof value);\n  };\n  var aopts = (value, label) => {\n    aobject(value, label);\n    const proto = Object.getPrototypeOf(value);\n    if (proto !== Object.prototype && proto !== null)\n      throw new TypeError(`\"${label}\" expected plain object`);\n    if (Object.hasOwn(value, \"__proto__\"))\n      throw new TypeError(`\"${label}.__proto__\" is not allowed`);\n  };\n  function aexists(instance, checkFinished = true) {\n    if (instance.destroyed)\n      throw new Error(\"hash was destroyed\");\n    if (checkFinished && instance.finished)\n      throw new Error(\"digest() was already called\");\n  }\n  function aoutput(out, instance) {\n    abytes(out, void 0, \"output\");\n    const min = instance.outputLen;\n    if (!(out.length >= min)) {\n      throw new RangeError('\"output\" expected length >= ' + min);\n    }\n  }\n  function clean(...arrays) {\n    for (let i = 0; i < arrays.length; i++) {\n      arrays[i].fill(0);\n    }\n  }\n  function createView(arr) {\n    return new DataView(arr.buffer, arr.byteOffset, arr.byteLength);\n  }\n  function rotr(word, shift) {\n    return word << 32 - shift | word >>> shift;\n  }\n  var hasHexBuiltin = /* @__PURE__ */ (() => (\n    // @ts-ignore\n    typeof Uint8Array.from([]).toHex === \"function\" && typeof Uint8Array.fromHex === \"function\"\n  ))();\n  var hexes = /* @__PURE__ */ Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, \"0\"));\n  function bytesToHex(bytes) {\n    abytes(bytes);\n    if (hasHexBuiltin)\n      return bytes.toHex();\n    let hex = \"\";\n    for (let i = 0; i < bytes.length; i++) {\n      hex += hexes[bytes[i]];\n    }\n    return hex;\n  }\n  function checkOpts(defaults, opts, title = \"opts\") {\n    aopts(defaults, \"defaults\");\n    if (opts !== void 0)\n      aopts(opts, title);\n    const merged = Object.assign(/* @__PURE__ */ Object.create(null), defaults, opts);\n    return merged;\n  }\n  function createHasher(hashCons, info = {}) {\n    if (typeof hashCons !== \"function\")\n      throw new TypeError('\"hashCons\" expected function, got type=' + typeof hashCons);\n    info = checkOpts({}, info, \"info\");\n    const hashC = (msg, opts) => hashCons(opts).update(msg).digest();\n    const tmp = hashCons(void 0);\n    hashC.outputLen = tmp.outputLen;\n    hashC.blockLen = tmp.blockLen;\n    hashC.canXOF = tmp.canXOF;\n    hashC.create = (opts) => hashCons(opts);\n    Object.assign(hashC, info);\n    return Object.freeze(hashC);\n  }\n  var oidNist = (suffix) => ({\n    // Current NIST hashAlgs suffixes used here fit in one DER subidentifier octet.\n    // Larger suffix values would need base-128 OID encoding and a different length byte.\n    oid: Uint8Array.from([6, 9, 96, 134, 72, 1, 101, 3, 4, 2, suffix])\n  });\n\n  // node_modules/@noble/hashes/_md.js\n  function Chi(a, b, c) {\n    return a & b ^ ~a & c;\n  }\n  function Maj(a, b, c) {\n    return a & b ^ a & c ^ b & c;\n  }\n  var HashMD = class {\n    constructor(blockLen, outputLen, padOffset, isLE) {\n      __publicField(this, \"blockLen\");\n      __publicField(this, \"outputLen\");\n      __publicField(this, \"canXOF\", false);\n      __publicField(this, \"padOffset\");\n      __publicField(this, \"isLE\");\n      // For partial updates less than block size\n      __publicField(this, \"buffer\");\n      __publicField(this, \"view\");\n      __publicField(this, \"finished\", false);\n      __publicField(this, \"length\", 0);\n      __publicField(this, \"pos\", 0);\n      __publicField(this, \"destroyed\", false);\n      this.blockLen = blockLen;\n      this.outputLen = outputLen;\n      this.padOffset = padOffset;\n      this.isLE = isLE;\n      this.buffer = new Uint8Array(blockLen);\n      this.view = createView(this.buffer);\n    }\n    update(data) {\n      aexists(this);\n      abytes(data);\n      const { view, buffer, blockLen } = this;\n      const len = data.length;\n      let processed = false;\n      for (let pos = 0; pos < len; ) {\n        const take = Math.min(blockLen - this.pos, len - pos);\n        if (take === blockLen) {\n          const dataView = createView(data);\n          for (; blockLen <= len - pos; pos += blockLen)\n            this.process(dataView, pos);\n          processed = true;\n          continue;\n        }\n        buffer.set(pos === 0 && take === len ? data : data.subarray(pos, pos + take), this.pos);\n        this.pos += take;\n        pos += take;\n        if (this.pos === blockLen) {\n          this.process(view, 0);\n          this.pos = 0;\n          processed = true;\n        }\n      }\n      this.length += data.length;\n      if (processed)\n        this.roundClean();\n      return this;\n    }\n    digestInto(out) {\n      aexists(this);\n      aoutput(out, this);\n      this.finished = true;\n      const { buffer, view, blockLen, isLE } = this;\n      let { pos } = this;\n      buffer[pos++] = 128;\n      buffer.fill(0, pos);\n      if (this.padOffset > blockLen - pos) {\n        this.process(view, 0);\n        buffer.fill(0);\n      }\n      setU64FromNum(view, blockLen - 8, this.length * 8, isLE);\n      this.process(view, 0);\n      this.roundClean();\n      const oview = out === buffer ? view : createView(out);\n      const len = this.outputLen;\n      const outLen = len / 4;\n      const state = this.get();\n      if (len % 4 || outLen > state.length)\n        throw new Error(\"invalid outputLen\");\n      for (let i = 0; i < outLen; i++)\n        oview.setUint32(4 * i, state[i], isLE);\n    }\n    digest() {\n      const { buffer, outputLen } = this;\n      this.digestInto(buffer);\n      const res = buffer.slice(0, outputLen);\n      this.destroy();\n      return res;\n    }\n    _cloneIntoMeta(to) {\n      const { buffer, length, finished, destroyed, pos } = this;\n      to.destroyed = destroyed;\n      to.finished = finished;\n      to.length = length;\n      to.pos = pos;\n      if (pos)\n        to.buffer.set(buffer);\n      return to;\n    }\n    clone() {\n      return this._cloneInto();\n    }\n  };\n  var SHA256_IV = /* @__PURE__ */ Uint32Array.from([\n    1779033703,\n    3144134277,\n    1013904242,\n    2773480762,\n    1359893119,\n    2600822924,\n    528734635,\n    1541459225\n  ]);\n  var SHA512_IV = /* @__PURE__ */ Uint32Array.from([\n    1779033703,\n    4089235720,\n    3144134277,\n    2227873595,\n    1013904242,\n    4271175723,\n    2773480762,\n    1595750129,\n    1359893119,\n    2917565137,\n    2600822924,\n    725511199,\n    528734635,\n    4215389547,\n    1541459225,\n    327033209\n  ]);\n\n  // node_modules/@noble/hashes/sha2.js\n  var SHA256_K = /* @__PURE__ */ Uint32Array.from([\n    1116352408,\n    1899447441,\n    3049323471,\n    3921009573,\n    961987163,\n    1508970993,\n    2453635748,\n    2870763221,\n    3624381080,\n    310598401,\n    607225278,\n    1426881987,\n    1925078388,\n    2162078206,\n    2614888103,\n    3248222580,\n    3835390401,\n    4022224774,\n    264347078,\n    604807628,\n    770255983,\n    1249150122,\n    1555081692,\n    1996064986,\n    2554220882,\n    2821834349,\n    2952996808,\n    3210313671,\n    3336571891,\n    3584528711,\n    113926993,\n    338241895,\n    666307205,\n    773529912,\n    1294757372,\n    1396182291,\n    1695183700,\n    1986661051,\n    2177026350,\n    2456956037,\n    2730485921,\n    2820302411,\n    3259730800,\n    3345764771,\n    3516065817,\n    3600352804,\n    4094571909,\n    275423344,\n    430227734,\n    506948616,\n    659060556,\n    883997877,\n    958139571,\n    1322822218,\n    1537002063,\n    1747873779,\n    1955562222,\n    2024104815,\n    2227730452,\n    2361852424,\n    2428436474,\n    2756734187,\n    3204031479,\n    3329325298\n  ]);\n  var SHA256_W = /* @__PURE__ */ new Uint32Array(64);\n  var SHA2_32B = class extends HashMD {\n    constructor(outputLen, IV) {\n      super(64, outputLen, 8, false);\n      // We cannot use array here since array allows indexing by variable\n      // which means optimizer/compiler cannot use registers.\n      // Numeric initializers matter: starting the fields as `undefined` changes\n      // V8's field representation and makes sha256 3x slower (measured).\n      __publicField(this, \"A\", 0);\n      __publicField(this, \"B\", 0);\n      __publicField(this, \"C\", 0);\n      __publicField(this, \"D\", 0);\n      __publicField(this, \"E\", 0);\n      __publicField(this, \"F\", 0);\n      __publicField(this, \"G\", 0);\n      __publicField(this, \"H\", 0);\n      this.A = IV[0] | 0;\n      this.B = IV[1] | 0;\n      this.C = IV[2] | 0;\n      this.D = IV[3] | 0;\n      this.E = IV[4] | 0;\n      this.F = IV[5] | 0;\n      this.G = IV[6] | 0;\n      this.H = IV[7] | 0;\n    }\n    get() {\n      const { A, B, C, D, E, F, G: G2, H } = this;\n      return [A, B, C, D, E, F, G2, H];\n    }\n    // prettier-ignore\n    set(A, B, C, D, E, F, G2, H) {\n      this.A = A | 0;\n      this.B = B | 0;\n      this.C = C | 0;\n      this.D = D | 0;\n      this.E = E | 0;\n      this.F = F | 0;\n      this.G = G2 | 0;\n      this.H = H | 0;\n    }\n    _cloneInto(to) {\n      (to || (to = new this.constructor())).set(...this.get());\n      return this._cloneIntoMeta(to);\n    }\n    process(view, offset) {\n      for (let i = 0; i < 16; i++, offset += 4)\n        SHA256_W[i] = view.getUint32(offset, false);\n      for (let i = 16; i < 64; i++) {\n        const W15 = SHA256_W[i - 15];\n        const W2 = SHA256_W[i - 2];\n        const s0 = rotr(W15, 7) ^ rotr(W15, 18) ^ W15 >>> 3;\n        const s1 = rotr(W2, 17) ^ rotr(W2, 19) ^ W2 >>> 10;\n        SHA256_W[i] = s1 + SHA256_W[i - 7] + s0 + SHA256_W[i - 16] | 0;\n      }\n      let { A, B, C, D, E, F, G: G2, H } = this;\n      for (let i = 0; i < 64; i++) {\n        const sigma1 = rotr(E, 6) ^ rotr(E, 11) ^ rotr(E, 25);\n        const T1 = H + sigma1 + Chi(E, F, G2) + SHA256_K[i] + SHA256_W[i] | 0;\n        const sigma0 = rotr(A, 2) ^ rotr(A, 13) ^ rotr(A, 22);\n        const T2 = sigma0 + Maj(A, B, C) | 0;\n        H = G2;\n        G2 = F;\n        F = E;\n        E = D + T1 | 0;\n        D = C;\n        C = B;\n        B = A;\n        A = T1 + T2 | 0;\n      }\n      A = A + this.A | 0;\n      B = B + this.B | 0;\n      C = C + this.C | 0;\n      D = D + this.D | 0;\n      E = E + this.E | 0;\n      F = F + this.F | 0;\n      G2 = G2 + this.G | 0;\n      H = H + this.H | 0;\n      this.set(A, B, C, D, E, F, G2, H);\n    }\n    roundClean() {\n      clean(SHA256_W);\n    }\n    destroy() {\n      this.destroyed = true;\n      this.set(0, 0, 0, 0, 0, 0, 0, 0);\n      clean(this.buffer);\n    }\n  };\n  var _SHA256 = class extends SHA2_32B {\n    constructor() {\n      super(32, SHA256_IV);\n    }\n  };\n  var K512 = /* @__PURE__ */ (() => split([\n    \"0x428a2f98d728ae22\",\n    \"0x7137449123ef65cd\",\n    \"0xb5c0fbcfec4d3b2f\",\n    \"0xe9b5dba58189dbbc\",\n    \"0x3956c25bf348b538\",\n    \"0x59f111f1b605d019\",\n    \"0x923f82a4af194f9b\",\n    \"0xab1c5ed5da6d8118\",\n    \"0xd807aa98a3030242\",\n    \"0x12835b0145706fbe\",\n    \"0x243185be4ee4b28c\",\n    \"0x550c7dc3d5ffb4e2\",\n    \"0x72be5d74f27b896f\",\n    \"0x80deb1fe3b1696b1\",\n    \"0x9bdc06a725c71235\",\n    \"0xc19bf174cf692694\",\n    \"0xe49b69c19ef14ad2\",\n    \"0xefbe4786384f25e3\",\n    \"0x0fc19dc68b8cd5b5\",\n    \"0x240ca1cc77ac9c65\",\n    \"0x2de92c6f592b0275\",\n    \"0x4a7484aa6ea6e483\",\n    \"0x5cb0a9dcbd41fbd4\",\n    \"0x76f988da831153b5\",\n    \"0x983e5152ee66dfab\",\n    \"0xa831c66d2db43210\",\n    \"0xb00327c898fb213f\",\n    \"0xbf597fc7beef0ee4\",\n    \"0xc6e00bf33da88fc2\",\n    \"0xd5a79147930aa725\",\n    \"0x06ca6351e003826f\",\n    \"0x142929670a0e6e70\",\n    \"0x27b70a8546d22ffc\",\n    \"0x2e1b21385c26c926\",\n    \"0x4d2c6dfc5ac42aed\",\n    \"0x53380d139d95b3df\",\n    \"0x650a73548baf63de\",\n    \"0x766a0abb3c77b2a8\",\n    \"0x81c2c92e47edaee6\",\n    \"0x92722c851482353b\",\n    \"0xa2bfe8a14cf10364\",\n    \"0xa81a664bbc423001\",\n    \"0xc24b8b70d0f89791\",\n    \"0xc76c51a30654be30\",\n    \"0xd192e819d6ef5218\",\n    \"0xd69906245565a910\",\n    \"0xf40e35855771202a\",\n    \"0x106aa07032bbd1b8\",\n    \"0x19a4c116b8d2d0c8\",\n    \"0x1e376c085141ab53\",\n    \"0x2748774cdf8eeb99\",\n    \"0x34b0bcb5e19b48a8\",\n    \"0x391c0cb3c5c95a63\",\n    \"0x4ed8aa4ae3418acb\",\n    \"0x5b9cca4f7763e373\",\n    \"0x682e6ff3d6b2b8a3\",\n    \"0x748f82ee5defb2fc\",\n    \"0x78a5636f43172f60\",\n    \"0x84c87814a1f0ab72\",\n    \"0x8cc702081a6439ec\",\n    \"0x90befffa23631e28\",\n    \"0xa4506cebde82bde9\",\n    \"0xbef9a3f7b2c67915\",\n    \"0xc67178f2e372532b\",\n    \"0xca273eceea26619c\",\n    \"0xd186b8c721c0c207\",\n    \"0xeada7dd6cde0eb1e\",\n    \"0xf57d4f7fee6ed178\",\n    \"0x06f067aa72176fba\",\n    \"0x0a637dc5a2c898a6\",\n    \"0x113f9804bef90dae\",\n    \"0x1b710b35131c471b\",\n    \"0x28db77f523047d84\",\n    \"0x32caab7b40c72493\",\n    \"0x3c9ebe0a15c9bebc\",\n    \"0x431d67c49c100d4c\",\n    \"0x4cc5d4becb3e42b6\",\n    \"0x597f299cfc657e2a\",\n    \"0x5fcb6fab3ad6faec\",\n    \"0x6c44198c4a475817\"\n  ].map((n) => BigInt(n))))();\n  var SHA512_Kh = /* @__PURE__ */ (() => K512[0])();\n  var SHA512_Kl = /* @__PURE__ */ (() => K512[1])();\n  var SHA512_W_H = /* @__PURE__ */ new Uint32Array(80);\n  var SHA512_W_L = /* @__PURE__ */ new Uint32Array(80);\n  var SHA2_64B = class extends HashMD {\n    constructor(outputLen, IV) {\n      super(128, outputLen, 16, false);\n      // We cannot use array here since array allows indexing by variable\n      // which means optimizer/compiler cannot use registers.\n      // h -- high 32 bits, l -- low 32 bits\n      // Numeric initializers matter: starting the fields as `undefined` changes\n      // V8's field representation and slows hashing down (measured on sha256).\n      __publicField(this, \"Ah\", 0);\n      __publicField(this, \"Al\", 0);\n      __publicField(this, \"Bh\", 0);\n      __publicField(this, \"Bl\", 0);\n      __publicField(this, \"Ch\", 0);\n      __publicField(this, \"Cl\", 0);\n      __publicField(this, \"Dh\", 0);\n      __publicField(this, \"Dl\", 0);\n      __publicField(this, \"Eh\", 0);\n      __publicField(this, \"El\", 0);\n      __publicField(this, \"Fh\", 0);\n      __publicField(this, \"Fl\", 0);\n      __publicField(this, \"Gh\", 0);\n      __publicField(this, \"Gl\", 0);\n      __publicField(this, \"Hh\", 0);\n      __publicField(this, \"Hl\", 0);\n      this.Ah = IV[0] | 0;\n      this.Al = IV[1] | 0;\n      this.Bh = IV[2] | 0;\n      this.Bl = IV[3] | 0;\n      this.Ch = IV[4] | 0;\n      this.Cl = IV[5] | 0;\n      this.Dh = IV[6] | 0;\n      this.Dl = IV[7] | 0;\n      this.Eh = IV[8] | 0;\n      this.El = IV[9] | 0;\n      this.Fh = IV[10] | 0;\n      this.Fl = IV[11] | 0;\n      this.Gh = IV[12] | 0;\n      this.Gl = IV[13] | 0;\n      this.Hh = IV[14] | 0;\n      this.Hl = IV[15] | 0;\n    }\n    // prettier-ignore\n    get() {\n      const { Ah, Al, Bh, Bl, Ch, Cl, Dh, Dl, Eh, El, Fh, Fl, Gh, Gl, Hh, Hl } = this;\n      return [Ah, Al, Bh, Bl, Ch, Cl, Dh, Dl, Eh, El, Fh, Fl, Gh, Gl, Hh, Hl];\n    }\n    // prettier-ignore\n    set(Ah, Al, Bh, Bl, Ch, Cl, Dh, Dl, Eh, El, Fh, Fl, Gh, Gl, Hh, Hl) {\n      this.Ah = Ah | 0;\n      this.Al = Al | 0;\n      this.Bh = Bh | 0;\n      this.Bl = Bl | 0;\n      this.Ch = Ch | 0;\n      this.Cl = Cl | 0;\n      this.Dh = Dh | 0;\n      this.Dl = Dl | 0;\n      this.Eh = Eh | 0;\n      this.El = El | 0;\n      this.Fh = Fh | 0;\n      this.Fl = Fl | 0;\n      this.Gh = Gh | 0;\n      this.Gl = Gl | 0;\n      this.Hh = Hh | 0;\n      this.Hl = Hl | 0;\n    }\n    _cloneInto(to) {\n      (to || (to = new this.constructor())).set(...this.get());\n      return this._cloneIntoMeta(to);\n    }\n    process(view, offset) {\n      for (let i = 0; i < 16; i++, offset += 4) {\n        SHA512_W_H[i] = view.getUint32(offset);\n        SHA512_W_L[i] = view.getUint32(offset += 4);\n      }\n      for (let i = 16; i < 80; i++) {\n        const W15h = SHA512_W_H[i - 15] | 0;\n        const W15l = SHA512_W_L[i - 15] | 0;\n        const s0h = rotrSH(W15h, W15l, 1) ^ rotrSH(W15h, W15l, 8) ^ shrSH(W15h, W15l, 7);\n        const s0l = rotrSL(W15h, W15l, 1) ^ rotrSL(W15h, W15l, 8) ^ shrSL(W15h, W15l, 7);\n        const W2h = SHA512_W_H[i - 2] | 0;\n        const W2l = SHA512_W_L[i - 2] | 0;\n        const s1h = rotrSH(W2h, W2l, 19) ^ rotrBH(W2h, W2l, 61) ^ shrSH(W2h, W2l, 6);\n        const s1l = rotrSL(W2h, W2l, 19) ^ rotrBL(W2h, W2l, 61) ^ shrSL(W2h, W2l, 6);\n        const SUMl = add4L(s0l, s1l, SHA512_W_L[i - 7], SHA512_W_L[i - 16]);\n        const SUMh = add4H(SUMl, s0h, s1h, SHA512_W_H[i - 7], SHA512_W_H[i - 16]);\n        SHA512_W_H[i] = SUMh | 0;\n        SHA512_W_L[i] = SUMl | 0;\n      }\n      let { Ah, Al, Bh, Bl, Ch, Cl, Dh, Dl, Eh, El, Fh, Fl, Gh, Gl, Hh, Hl } = this;\n      for (let i = 0; i < 80; i++) {\n        const sigma1h = rotrSH(Eh, El, 14) ^ rotrSH(Eh, El, 18) ^ rotrBH(Eh, El, 41);\n        const sigma1l = rotrSL(Eh, El, 14) ^ rotrSL(Eh, El, 18) ^ rotrBL(Eh, El, 41);\n        const CHIh = Eh & Fh ^ ~Eh & Gh;\n        const CHIl = El & Fl ^ ~El & Gl;\n        const T1ll = add5L(Hl, sigma1l, CHIl, SHA512_Kl[i], SHA512_W_L[i]);\n        const T1h = add5H(T1ll, Hh, sigma1h, CHIh, SHA512_Kh[i], SHA512_W_H[i]);\n        const T1l = T1ll | 0;\n        const sigma0h = rotrSH(Ah, Al, 28) ^ rotrBH(Ah, Al, 34) ^ rotrBH(Ah, Al, 39);\n        const sigma0l = rotrSL(Ah, Al, 28) ^ rotrBL(Ah, Al, 34) ^ rotrBL(Ah, Al, 39);\n        const MAJh = Ah & Bh ^ Ah & Ch ^ Bh & Ch;\n        const MAJl = Al & Bl ^ Al & Cl ^ Bl & Cl;\n        Hh = Gh | 0;\n        Hl = Gl | 0;\n        Gh = Fh | 0;\n        Gl = Fl | 0;\n        Fh = Eh | 0;\n        Fl = El | 0;\n        ({ h: Eh, l: El } = add(Dh | 0, Dl | 0, T1h | 0, T1l | 0));\n        Dh = Ch | 0;\n        Dl = Cl | 0;\n        Ch = Bh | 0;\n        Cl = Bl | 0;\n        Bh = Ah | 0;\n        Bl = Al | 0;\n        const All = add3L(T1l, sigma0l, MAJl);\n        Ah = add3H(All, T1h, sigma0h, MAJh);\n        Al = All | 0;\n      }\n      ({ h: Ah, l: Al } = add(this.Ah | 0, this.Al | 0, Ah | 0, Al | 0));\n      ({ h: Bh, l: Bl } = add(this.Bh | 0, this.Bl | 0, Bh | 0, Bl | 0));\n      ({ h: Ch, l: Cl } = add(this.Ch | 0, this.Cl | 0, Ch | 0, Cl | 0));\n      ({ h: Dh, l: Dl } = add(this.Dh | 0, this.Dl | 0, Dh | 0, Dl | 0));\n      ({ h: Eh, l: El } = add(this.Eh | 0, this.El | 0, Eh | 0, El | 0));\n      ({ h: Fh, l: Fl } = add(this.Fh | 0, this.Fl | 0, Fh | 0, Fl | 0));\n      ({ h: Gh, l: Gl } = add(this.Gh | 0, this.Gl | 0, Gh | 0, Gl | 0));\n      ({ h: Hh, l: Hl } = add(this.Hh | 0, this.Hl | 0, Hh | 0, Hl | 0));\n      this.set(Ah, Al, Bh, Bl, Ch, Cl, Dh, Dl, Eh, El, Fh, Fl, Gh, Gl, Hh, Hl);\n    }\n    roundClean() {\n      clean(SHA512_W_H, SHA512_W_L);\n    }\n    destroy() {\n      this.destroyed = true;\n      clean(this.buffer);\n      this.set(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);\n    }\n  };\n  var _SHA512 = class extends SHA2_64B {\n    constructor() {\n      super(64, SHA512_IV);\n    }\n  };\n  var sha256 = /* @__PURE__ */ createHasher(\n    () => new _SHA256(),\n    /* @__PURE__ */ oidNist(1)\n  );\n  var sha512 = /* @__PURE__ */ createHasher(\n    () => new _SHA512(),\n    /* @__PURE__ */ oidNist(3)\n  );\n\n  // src/report/client/hash.ts\n  var ZERO_HASH = \"0\".repeat(64);\n  var HEX64 = /^[0-9a-f]{64}$/;\n  var utf82 = new TextEncoder();\n  function sha256Hex(data) {\n    return bytesToHex(sha256(typeof data === \"string\" ? utf82.encode(data) : data));\n  }\n  function isSha256Hex(s) {\n    return typeof s === \"string\" && HEX64.test(s);\n  }\n\n  // node_modules/@noble/ed25519/index.js\n  var freeze = Object.freeze;\n  var P = 0x7fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffedn;\n  var N = 0x1000000000000000000000000000000014def9dea2f79cd65812631a5cf5d3edn;\n  var _d = 0x52036cee2b6ffe738cc740797779e89800700a4d4141d8ab75eb4dca135978a3n;\n  var Gx = 0x216936d3cd6e53fec0a4e231fdd6dc5c692cc7609525a7b2c9562d608f25d51an;\n  var Gy = 0x6666666666666666666666666666666666666666666666666666666666666658n;\n  var _a = P - 1n;\n  var ed25519_CURVE = freeze({\n    p: P,\n    n: N,\n    h: 8n,\n    a: _a,\n    d: _d,\n    Gx,\n    Gy\n  });\n  var LEN = 32;\n  var isBytes2 = (a) => {\n    return a instanceof Uint8Array || ArrayBuffer.isView(a) && a.constructor.name === \"Uint8Array\" && a.BYTES_PER_ELEMENT === 1;\n  };\n  var abytes2 = (value, length, title = \"\") => {\n    if (isBytes2(value) && (length === void 0 || value.length === length))\n      return value;\n    const bytes = isBytes2(value);\n    const ofLen = length !== void 0 ? ` of length ${length}` : \"\";\n    const got = bytes ? `length=${value.length}` : `type=${typeof value}`;\n    const message = (title ? `\"${title}\" ` : \"\") + \"expected Uint8Array\" + ofLen + \", got \" + got;\n    if (!bytes)\n      throw new TypeError(message);\n    throw new RangeError(message);\n  };\n  var snapshotBytes = (value, title = \"\", length) => Uint8Array.from(abytes2(value, length, title));\n  var padh = (n, pad) => n.toString(16).padStart(pad, \"0\");\n  var bytesToHex2 = (bytes) => {\n    let hex = \"\";\n    for (const byte of abytes2(bytes))\n      hex += padh(byte, 2);\n    return hex;\n  };\n  var hexToBytes = (hex) => {\n    const e = \"hex invalid\";\n    if (typeof hex !== \"string\")\n      throw new TypeError(e);\n    if (hex.length % 2 || !/^[\\da-f]*$/i.test(hex))\n      throw new RangeError(e);\n    const array = new Uint8Array(hex.length / 2);\n    for (let ai = 0, hi = 0; ai < array.length; ai++, hi += 2) {\n      const n1 = hex.charCodeAt(hi);\n      const n2 = hex.charCodeAt(hi + 1);\n      array[ai] = ((n1 & 15) + (n1 >> 6) * 9) * 16 + (n2 & 15) + (n2 >> 6) * 9;\n    }\n    return array;\n  };\n  var concatBytes = (...arrays) => {\n    let sum = 0;\n    for (const a of arrays)\n      sum += abytes2(a).length;\n    const res = new Uint8Array(sum);\n    let pad = 0;\n    for (const a of arrays) {\n      res.set(a, pad);\n      pad += a.length;\n    }\n    return res;\n  };\n  var arange = (n, min, max, msg = \"bad number: out of range\") => {\n    if (typeof n !== \"bigint\")\n      throw new TypeError(msg);\n    if (min <= n && n < max)\n      return n;\n    throw new RangeError(msg);\n  };\n  var mod = (a, b = P) => (a %= b) >= 0n ? a : b + a;\n  var P_MASK = (1n << 255n) - 1n;\n  var modP = (num) => {\n    if (num < 0n)\n      throw new RangeError(\"negative coordinate\");\n    let r = (num >> 255n) * 19n + (num & P_MASK);\n    r = (r >> 255n) * 19n + (r & P_MASK);\n    return r % P;\n  };\n  var modN = (a) => mod(a, N);\n  var invert = (number, modulo) => {\n    if (number === 0n)\n      throw new Error(\"invert: expected non-zero number\");\n    if (modulo <= 1n)\n      throw new Error(\"invert: expected modulus > 1, got \" + modulo);\n    let a = mod(number, modulo);\n    let b = modulo;\n    let x = 0n, u = 1n;\n    while (a !== 0n) {\n      const q = b / a;\n      const r = b - a * q;\n      const m = x - u * q;\n      b = a, a = r, x = u, u = m;\n    }\n    const gcd = b;\n    if (gcd !== 1n)\n      throw new Error(\"invert: does not exist\");\n    return mod(x, modulo);\n  };\n  var _hash = (name) => {\n    const fn = hashes[name];\n    if (typeof fn !== \"function\")\n      throw new Error(\"hashes.\" + name + \" not set\");\n    return fn;\n  };\n  var callHash = (name, ...m) => abytes2(_hash(name)(concatBytes(...m)), 64, \"digest\");\n  var apoint = (p) => {\n    if (p instanceof Point)\n      return p;\n    throw new TypeError(\"Point expected\");\n  };\n  var B256 = 2n ** 256n;\n  var _Point = class _Point {\n    // Constructor only bounds-checks and freezes XYZT coordinates; it does not prove the point is\n    // on-curve or that T matches X*Y/Z.\n    constructor(X, Y, Z, T) {\n      __publicField(this, \"X\");\n      __publicField(this, \"Y\");\n      __publicField(this, \"Z\");\n      __publicField(this, \"T\");\n      const max = B256;\n      this.X = arange(X, 0n, max);\n      this.Y = arange(Y, 0n, max);\n      this.Z = arange(Z, 1n, max);\n      this.T = arange(T, 0n, max);\n      freeze(this);\n    }\n    static CURVE() {\n      return ed25519_CURVE;\n    }\n    static fromAffine(p) {\n      return new _Point(p.x, p.y, 1n, modP(p.x * p.y));\n    }\n    /** RFC8032 5.1.3: Uint8Array to Point. */\n    static fromBytes(bytes, zip215 = false) {\n      const normed = snapshotBytes(bytes, \"point\", LEN);\n      const lastByte = normed[31];\n      normed[31] = lastByte & ~128;\n      const y = bytesToNumberLE(normed);\n      if (!zip215)\n        arange(y, 0n, P);\n      const y2 = modP(y * y);\n      const u = mod(y2 - 1n);\n      const v = modP(_d * y2 + 1n);\n      let { isValid, value: x } = uvRatio(u, v);\n      if (!isValid)\n        throw new Error(\"bad point: y not sqrt\");\n      const isLastByteOdd = !!(lastByte & 128);\n      if (!zip215 && x === 0n && isLastByteOdd)\n        throw new Error(\"bad point: x==0, isLastByteOdd\");\n      if (isLastByteOdd !== !!(x & 1n))\n        x = mod(-x);\n      return new _Point(x, y, 1n, modP(x * y));\n    }\n    static fromHex(hex, zip215) {\n      return _Point.fromBytes(hexToBytes(hex), zip215);\n    }\n    get x() {\n      return this.toAffine().x;\n    }\n    get y() {\n      return this.toAffine().y;\n    }\n    /** Checks if the point is valid and on-curve. */\n    assertValidity() {\n      const a = _a;\n      const d = _d;\n      const p = this;\n      if (p.is0())\n        throw new Error(\"bad point: ZERO\");\n      const { X, Y, Z, T } = p;\n      const X2 = modP(X * X);\n      const Y2 = modP(Y * Y);\n      const Z2 = modP(Z * Z);\n      const Z4 = modP(Z2 * Z2);\n      const aX2 = modP(X2 * a);\n      const left = modP(Z2 * (aX2 + Y2));\n      const right = mod(Z4 + modP(d * modP(X2 * Y2)));\n      if (left !== right)\n        throw new Error(\"bad point: equation left != right (1)\");\n      const XY = modP(X * Y);\n      const ZT = modP(Z * T);\n      if (XY !== ZT)\n        throw new Error(\"bad point: equation left != right (2)\");\n      return this;\n    }\n    /** Equality check: compare points P&Q. */\n    equals(other) {\n      const { X: X1, Y: Y1, Z: Z1 } = this;\n      const { X: X2, Y: Y2, Z: Z2 } = apoint(other);\n      return modP(X1 * Z2) === modP(X2 * Z1) && modP(Y1 * Z2) === modP(Y2 * Z1);\n    }\n    is0() {\n      return this.equals(I);\n    }\n    /** Flip point over y coordinate. */\n    negate() {\n      return new _Point(mod(-this.X), this.Y, this.Z, mod(-this.T));\n    }\n    /** Point doubling. Complete formula. Cost: `4M + 4S + 1*a + 6add + 1*2`. */\n    double() {\n      const { X: X1, Y: Y1, Z: Z1 } = this;\n      const a = _a;\n      const A = modP(X1 * X1);\n      const B = modP(Y1 * Y1);\n      const C = modP(2n * Z1 * Z1);\n      const D = modP(a * A);\n      const x1y1 = mod(X1 + Y1);\n      const E = mod(modP(x1y1 * x1y1) - A - B);\n      const G2 = mod(D + B);\n      const F = mod(G2 - C);\n      const H = mod(D - B);\n      const X3 = modP(E * F);\n      const Y3 = modP(G2 * H);\n      const T3 = modP(E * H);\n      const Z3 = modP(F * G2);\n      return new _Point(X3, Y3, Z3, T3);\n    }\n    /** Point addition. Complete formula. Cost: `9M + 1*a + 1*d + 7add`. */\n    add(other) {\n      const { X: X1, Y: Y1, Z: Z1, T: T1 } = this;\n      const { X: X2, Y: Y2, Z: Z2, T: T2 } = apoint(other);\n      const a = _a;\n      const d = _d;\n      const A = modP(X1 * X2);\n      const B = modP(Y1 * Y2);\n      const C = modP(modP(T1 * d) * T2);\n      const D = modP(Z1 * Z2);\n      const E = mod(modP(mod(X1 + Y1) * mod(X2 + Y2)) - A - B);\n      const F = mod(D - C);\n      const G2 = mod(D + C);\n      const H = mod(B - modP(a * A));\n      const X3 = modP(E * F);\n      const Y3 = modP(G2 * H);\n      const T3 = modP(E * H);\n      const Z3 = modP(F * G2);\n      return new _Point(X3, Y3, Z3, T3);\n    }\n    subtract(other) {\n      return this.add(apoint(other).negate());\n    }\n    /**\n     * Point-by-scalar multiplication. Safe mode requires `1 <= n < CURVE.n`.\n     * Unsafe mode additionally permits `n = 0` and returns the identity point for that case.\n     * Uses {@link wNAF} for base point.\n     * Uses fake point to mitigate side-channel leakage.\n     * @param n - scalar by which point is multiplied\n     * @param safe - safe mode guards against timing attacks; unsafe mode is faster\n     */\n    multiply(n, safe = true) {\n      if (!safe && n === 0n)\n        return I;\n      arange(n, 1n, N);\n      if (!safe && this.is0())\n        return I;\n      if (n === 1n)\n        return this;\n      if (this.equals(G))\n        return wNAF(n).p;\n      let p = I;\n      let f = G;\n      let d = this;\n      for (let i = 0; safe ? i < 256 : n > 0n; i++) {\n        if (n & 1n)\n          p = p.add(d);\n        else if (safe)\n          f = f.add(d);\n        d = d.double();\n        n >>= 1n;\n      }\n      return p;\n    }\n    multiplyUnsafe(scalar) {\n      return this.multiply(scalar, false);\n    }\n    /** Convert point to 2d xy affine point. (X, Y, Z) ∋ (x=X/Z, y=Y/Z) */\n    toAffine() {\n      const { X, Y, Z } = this;\n      if (this.equals(I))\n        return { x: 0n, y: 1n };\n      const iz = invert(Z, P);\n      if (modP(Z * iz) !== 1n)\n        throw new Error(\"invalid inverse\");\n      return { x: modP(X * iz), y: modP(Y * iz) };\n    }\n    toBytes() {\n      const { x, y } = this.toAffine();\n      const b = numTo32bLE(y);\n      b[31] |= x & 1n ? 128 : 0;\n      return b;\n    }\n    toHex() {\n      return bytesToHex2(this.toBytes());\n    }\n    clearCofactor() {\n      return this.multiply(8n, false);\n    }\n    isSmallOrder() {\n      return this.clearCofactor().is0();\n    }\n    isTorsionFree() {\n      return this.multiply(N / 2n, false).double().add(this).is0();\n    }\n  };\n  __publicField(_Point, \"BASE\");\n  __publicField(_Point, \"ZERO\");\n  var Point = _Point;\n  var G = new Point(Gx, Gy, 1n, mod(Gx * Gy));\n  var I = new Point(0n, 1n, 1n, 0n);\n  Point.BASE = G;\n  Point.ZERO = I;\n  var numTo32bLE = (num) => hexToBytes(padh(arange(num, 0n, B256), 64)).reverse();\n  var bytesToNumberLE = (b) => BigInt(\"0x\" + bytesToHex2(Uint8Array.from(abytes2(b)).reverse()));\n  var pow2 = (x, power) => {\n    let r = x;\n    while (power-- > 0) {\n      r = modP(r * r);\n    }\n    return r;\n  };\n  var pow_2_252_3 = (x) => {\n    const x2 = modP(x * x);\n    const b2 = modP(x2 * x);\n    const b4 = modP(pow2(b2, 2) * b2);\n    const b5 = modP(pow2(b4, 1) * x);\n    const b10 = modP(pow2(b5, 5) * b5);\n    const b20 = modP(pow2(b10, 10) * b10);\n    const b40 = modP(pow2(b20, 20) * b20);\n    const b80 = modP(pow2(b40, 40) * b40);\n    const b160 = modP(pow2(b80, 80) * b80);\n    const b240 = modP(pow2(b160, 80) * b80);\n    const b250 = modP(pow2(b240, 10) * b10);\n    return modP(pow2(b250, 2) * x);\n  };\n  var RM1 = 0x2b8324804fc1df0b2b4d00993dfbd7a72f431806ad2fe478c4ee1b274a0ea0b0n;\n  var uvRatio = (u, v) => {\n    const v3 = modP(v * modP(v * v));\n    const v7 = modP(modP(v3 * v3) * v);\n    const pow = pow_2_252_3(modP(u * v7));\n    let x = modP(u * modP(v3 * pow));\n    const vx2 = modP(v * modP(x * x));\n    const root1 = x;\n    const root2 = modP(x * RM1);\n    const useRoot1 = vx2 === u;\n    const useRoot2 = vx2 === mod(-u);\n    const noRoot = vx2 === mod(-u * RM1);\n    if (useRoot1)\n      x = root1;\n    if (useRoot2 || noRoot)\n      x = root2;\n    if ((mod(x) & 1n) === 1n)\n      x = mod(-x);\n    return { isValid: useRoot1 || useRoot2, value: x };\n  };\n  var modL_LE = (hash) => modN(bytesToNumberLE(hash));\n  var hashFinishSync = (res) => res[1](callHash(\"sha512\", res[0]));\n  var getZip215 = (options) => {\n    if (options === null || typeof options !== \"object\")\n      throw new TypeError(\"expected valid options object\");\n    return options.zip215 ?? true;\n  };\n  var _verify = (sig, msg, publicKey, options) => {\n    sig = abytes2(sig, 64, \"signature\");\n    msg = abytes2(msg, void 0, \"message\");\n    publicKey = abytes2(publicKey, LEN, \"publicKey\");\n    const zip215 = getZip215(options);\n    const r = sig.subarray(0, LEN);\n    const s = bytesToNumberLE(sig.subarray(LEN, 64));\n    let A, R, SB;\n    let hashable = Uint8Array.of();\n    let finished = false;\n    try {\n      A = Point.fromBytes(publicKey, zip215);\n      R = Point.fromBytes(r, zip215);\n      SB = G.multiply(s, false);\n      hashable = concatBytes(r, publicKey, msg);\n      finished = true;\n    } catch (error) {\n    }\n    const finish = (hashed) => {\n      if (!finished)\n        return false;\n      if (!zip215 && A.isSmallOrder())\n        return false;\n      const k = modL_LE(hashed);\n      const RkA = R.add(A.multiply(k, false));\n      return RkA.subtract(SB).clearCofactor().is0();\n    };\n    return [hashable, finish];\n  };\n  var verify = (signature, message, publicKey, opts = {}) => hashFinishSync(_verify(signature, message, publicKey, opts));\n  var hashes = {\n    sha512Async: async (message) => {\n      const s = globalThis?.crypto?.subtle;\n      if (!s)\n        throw new Error(\"crypto.subtle must be defined, consider polyfill\");\n      return new Uint8Array(await s.digest(\"SHA-512\", concatBytes(message)));\n    },\n    sha512: void 0\n  };\n  var precompute = () => {\n    const points = [];\n    let p = G;\n    let b;\n    for (let w = 0; w < 33; w++) {\n      b = p;\n      points.push(b);\n      for (let i = 1; i < 128; i++) {\n        b = b.add(p);\n        points.push(b);\n      }\n      p = b.double();\n    }\n    return points;\n  };\n  var Gpows = void 0;\n  var ctneg = (cnd, p) => {\n    const n = p.negate();\n    return cnd ? n : p;\n  };\n  var wNAF = (n) => {\n    const comp = Gpows || (Gpows = precompute());\n    let p = I;\n    let f = G;\n    for (let w = 0; w < 33; w++) {\n      let wbits = Number(n & 255n);\n      n >>= 8n;\n      if (wbits > 128) {\n        wbits -= 256;\n        n += 1n;\n      }\n      const off = w * 128;\n      const offP = off + Math.abs(wbits) - 1;\n      const isOddW = w % 2 !== 0;\n      const isNeg = wbits < 0;\n      if (wbits === 0) {\n        f = f.add(ctneg(isOddW, comp[off]));\n      } else {\n        p = p.add(ctneg(isNeg, comp[offP]));\n      }\n    }\n    if (n !== 0n)\n      throw new Error(\"invalid wnaf\");\n    return { p, f };\n  };\n\n  // src/report/client/signature.ts\n  hashes.sha512 = sha512;\n  var SPKI_PREFIX = [48, 42, 48, 5, 6, 3, 43, 101, 112, 3, 33, 0];\n  function keyIdOf(raw) {\n    return sha256Hex(raw).slice(0, 16);\n  }\n  function base64Bytes(b64) {\n    const bin = atob(b64);\n    const out = new Uint8Array(bin.length);\n    for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);\n    return out;\n  }\n  function rawKey(raw) {\n    return { ok: true, raw, keyId: keyIdOf(raw) };\n  }\n  function parsePastedKey(text) {\n    const t = text.trim();\n    if (t === \"\") return { ok: false, reason: \"paste a public key first\" };\n    const pem = /^-----BEGIN ([A-Z0-9 ]+)-----([\\s\\S]*?)-----END \\1-----$/.exec(t);\n    if (pem !== null) {\n      if (pem[1].includes(\"PRIVATE\")) return { ok: false, reason: \"this is a PRIVATE key: paste the public key only\" };\n      if (pem[1] !== \"PUBLIC KEY\") return { ok: false, reason: `a PEM \"${pem[1]}\"; expected \"PUBLIC KEY\" (SPKI)` };\n      const body = pem[2].replace(/\\s+/g, \"\");\n      if (!/^[A-Za-z0-9+/]+={0,2}$/.test(body)) return { ok: false, reason: \"the PEM body is not base64\" };\n      const der = base64Bytes(body);\n      if (der.length !== 44 || SPKI_PREFIX.some((b, i) => der[i] !== b))\n        return { ok: false, reason: \"not an Ed25519 public key (another algorithm, or a malformed SPKI)\" };\n      return rawKey(der.slice(12));\n    }\n    if (/^[0-9a-fA-F]{64}$/.test(t)) {\n      const raw = new Uint8Array(32);\n      for (let i = 0; i < 32; i++) raw[i] = parseInt(t.slice(i * 2, i * 2 + 2), 16);\n      return rawKey(raw);\n    }\n    if (/^[A-Za-z0-9+/]{43}=$/.test(t)) return rawKey(base64Bytes(t));\n    return {\n      ok: false,\n      reason: 'not a public key: expected PEM \"PUBLIC KEY\", or the raw 32 bytes as 64 hex digits or base64'\n    };\n  }\n  function verifyEd25519(signature, message, publicKey) {\n    if (signature.length !== 64 || publicKey.length !== 32) return false;\n    try {\n      return verify(signature, message, publicKey, { zip215: false });\n    } catch {\n      return false;\n    }\n  }\n\n  // src/journal/chain.ts\n  var NO_FAULTS = Object.freeze([]);\n  var short = (h) => h;\n  var ChainChecker = class {\n    constructor() {\n      __publicField(this, \"expectedSeq\", 0);\n      __publicField(this, \"prevHash\", ZERO_HASH);\n      __publicField(this, \"steps\", 0);\n    }\n    check(line, row, computedHash) {\n      return this.finish(line, row, computedHash, this.link(line, row));\n    }\n    /** The seq and prev_hash checks of a row against the expected position (no state change). */\n    link(line, row) {\n      if (row.seq === this.expectedSeq && row.prev_hash === this.prevHash) return NO_FAULTS;\n      const faults = [];\n      if (row.seq !== this.expectedSeq) {\n        faults.push({ line, kind: \"seq_mismatch\", message: `seq ${row.seq}, expected ${this.expectedSeq}` });\n      }\n      if (row.prev_hash !== this.prevHash) {\n        faults.push({\n          line,\n          kind: \"prev_hash_mismatch\",\n          message: `chain break: prev_hash ${short(row.prev_hash)} does not match the previous step_hash ${short(this.prevHash)}`\n        });\n      }\n      return faults;\n    }\n    /** The step hash check, then advance past the row. */\n    finish(line, row, computedHash, linkFaults) {\n      let faults = linkFaults;\n      if (computedHash !== row.step_hash) {\n        faults = [\n          ...linkFaults,\n          {\n            line,\n            kind: \"step_hash_mismatch\",\n            message: `field tamper: stored step_hash ${short(row.step_hash)}, recomputed ${short(computedHash)}`\n          }\n        ];\n      }\n      this.expectedSeq = row.seq + 1;\n      this.prevHash = row.step_hash;\n      this.steps++;\n      return faults;\n    }\n    get head() {\n      return this.prevHash;\n    }\n  };\n\n  // src/journal/step-hash.ts\n  function payloadOf(f) {\n    return {\n      prev_hash: f.prev_hash,\n      input_hash: f.input_hash,\n      model: f.model,\n      prompt: f.prompt,\n      tool_call: f.tool_call,\n      tool_result: f.tool_result\n    };\n  }\n  function stepPayload(f, read = false) {\n    return read ? canonicalOfRead(payloadOf(f)) : canonical(payloadOf(f));\n  }\n  function computeStepHash(f, read = false) {\n    return sha256Hex(stepPayload(f, read));\n  }\n\n  // src/journal/row.ts\n  var ROW_KEYS = [\n    \"blob_refs\",\n    \"input_hash\",\n    \"model\",\n    \"prev_hash\",\n    \"prompt\",\n    \"seq\",\n    \"step_hash\",\n    \"tool_call\",\n    \"tool_result\",\n    \"ts\"\n  ];\n  function readRowLine(bytes) {\n    let value;\n    let text;\n    try {\n      text = decodeUtf8(bytes);\n      value = parse(text);\n    } catch (e) {\n      if (e instanceof JsonParseError) return { kind: \"malformed\", reason: e.message };\n      if (e instanceof RangeError) return { kind: \"malformed\", reason: \"line too large or too deeply nested\" };\n      throw e;\n    }\n    return rowFromValue(value, text);\n  }\n  function rowFromValue(value, text) {\n    if (!isJsonObject(value)) return { kind: \"malformed\", reason: \"line is not a JSON object\" };\n    for (const k of ROW_KEYS) {\n      if (!Object.prototype.hasOwnProperty.call(value, k)) return { kind: \"malformed\", reason: `row has no \"${k}\" key` };\n    }\n    const v = value;\n    if (typeof v.prev_hash !== \"string\") return { kind: \"malformed\", reason: '\"prev_hash\" is not a string' };\n    if (typeof v.step_hash !== \"string\") return { kind: \"malformed\", reason: '\"step_hash\" is not a string' };\n    if (typeof v.input_hash !== \"string\") return { kind: \"malformed\", reason: '\"input_hash\" is not a string' };\n    if (!isJsonInteger(v.seq) || typeof v.seq === \"bigint\" || v.seq < 0) {\n      return { kind: \"malformed\", reason: '\"seq\" is not a non-negative integer' };\n    }\n    const refs = v.blob_refs;\n    if (!Array.isArray(refs) || !refs.every((r) => isSha256Hex(r))) {\n      return { kind: \"malformed\", reason: '\"blob_refs\" is not a list of SHA-256 hex digests' };\n    }\n    const ts = numericValue(v.ts);\n    if (ts === void 0) return { kind: \"malformed\", reason: '\"ts\" is not a number' };\n    const row = {\n      blob_refs: refs,\n      input_hash: v.input_hash,\n      model: v.model,\n      prev_hash: v.prev_hash,\n      prompt: v.prompt,\n      seq: v.seq,\n      step_hash: v.step_hash,\n      tool_call: v.tool_call,\n      tool_result: v.tool_result,\n      ts\n    };\n    let isCanonical = false;\n    if (text !== void 0) {\n      try {\n        isCanonical = canonicalOfRead(value) === text && Object.keys(value).length === ROW_KEYS.length;\n      } catch {\n        isCanonical = false;\n      }\n    }\n    return { kind: \"row\", row, value, computedHash: computeStepHash(row, true), canonical: isCanonical };\n  }\n\n  // src/report/client/verifier.ts\n  function createVerifier(bytes, options = {}) {\n    const window = options.window ?? null;\n    const lineOffset = window === null ? 0 : window.first_line - 1;\n    const bounds = [];\n    for (let s = 0; s < bytes.length; ) {\n      let nl = bytes.indexOf(10, s);\n      if (nl < 0) nl = bytes.length;\n      bounds.push(s, nl);\n      s = nl + 1;\n    }\n    const total = bounds.length / 2;\n    const reachesEnd = window === null || lineOffset + total >= window.total_lines;\n    const entries = [];\n    const errors = [];\n    const chain = new ChainChecker();\n    if (window !== null) {\n      chain.expectedSeq = window.first_seq;\n      chain.prevHash = window.anchor_hash;\n    }\n    let done = false;\n    const checkLine = (idx) => {\n      const start = bounds[idx * 2];\n      const end = bounds[idx * 2 + 1];\n      const line = lineOffset + idx + 1;\n      const entry = { line, start, end, row: null, computed: null, faults: [] };\n      entries.push(entry);\n      const add2 = (faults) => {\n        for (const f of faults) {\n          entry.faults.push(f);\n          errors.push(f);\n        }\n      };\n      if (end === start) {\n        add2([{ line, kind: \"malformed_json\", message: \"empty line\" }]);\n        return;\n      }\n      const read = readRowLine(bytes.subarray(start, end));\n      if (read.kind === \"malformed\") {\n        add2([{ line, kind: \"malformed_json\", message: read.reason }]);\n        return;\n      }\n      entry.row = read.row;\n      entry.computed = read.computedHash;\n      add2(chain.check(line, read.row, read.computedHash));\n    };\n    const head = () => chain.steps > 0 || window !== null ? chain.head : ZERO_HASH;\n    const finish = () => {\n      if (window === null && bytes.length === 0)\n        errors.push({ line: null, kind: \"empty_journal\", message: \"journal has no steps\" });\n      const expected = options.expectedHead;\n      if (reachesEnd && expected !== void 0 && expected !== null && expected !== head()) {\n        errors.push({ line: null, kind: \"head_mismatch\", message: `head ${head()}, expected ${expected}` });\n      }\n      done = true;\n    };\n    return {\n      entries,\n      total,\n      run(maxLines) {\n        if (done) return true;\n        const stop = Math.min(total, entries.length + maxLines);\n        while (entries.length < stop) checkLine(entries.length);\n        if (entries.length >= total) finish();\n        return done;\n      },\n      result() {\n        return { ok: done && errors.length === 0, head_hash: head(), steps: chain.steps, errors: errors.slice() };\n      }\n    };\n  }\n\n  // src/report/client/app.ts\n  var lossyUtf8 = new TextDecoder(\"utf-8\", { fatal: false, ignoreBOM: true });\n  var HASHED_FIELDS = [\"model\", \"prompt\", \"tool_call\", \"tool_result\"];\n  var BLOB_PAGE = 100;\n  function startReport(doc) {\n    const root = doc.documentElement;\n    const $ = (id) => {\n      const e = doc.getElementById(id);\n      if (e === null) throw new Error(`page element #${id} is missing`);\n      return e;\n    };\n    const el = (tag, cls, text) => {\n      const e = doc.createElement(tag);\n      if (cls) e.className = cls;\n      if (text !== void 0) e.textContent = text;\n      return e;\n    };\n    const fmtInt = (n) => String(n).replace(/\\B(?=(\\d{3})+(?!\\d))/g, \",\");\n    const fmtSize = (n) => n < 1024 ? `${n} B` : n < 1048576 ? `${(n / 1024).toFixed(1)} KiB` : `${(n / 1048576).toFixed(1)} MiB`;\n    const plural = (n, one, many = `${one}s`) => `${fmtInt(n)} ${n === 1 ? one : many}`;\n    const fail = (kind, message) => {\n      root.setAttribute(\"data-verify-state\", \"done\");\n      root.setAttribute(\"data-verified\", \"false\");\n      root.setAttribute(\"data-first-fault-kind\", kind);\n      const status2 = doc.getElementById(\"status\");\n      if (status2) {\n        status2.className = \"status bad\";\n        const t = doc.getElementById(\"status-title\");\n        if (t) t.textContent = \"\\u2717 NOT VERIFIED: the report could not check this chain\";\n        const d = doc.getElementById(\"status-detail\");\n        if (d) d.textContent = message;\n      }\n    };\n    let data;\n    try {\n      data = JSON.parse($(\"stepchain-data\").textContent ?? \"\");\n      if (data.format !== 2) throw new Error(`format ${String(data.format)}, this page reads format 2`);\n    } catch (e) {\n      fail(\"report_error\", `embedded data unreadable: ${e.message}`);\n      return;\n    }\n    const win = data.window;\n    const gv = data.generator_verify;\n    const journal = base64Bytes(data.journal_b64);\n    const verifier = createVerifier(journal, { expectedHead: data.expected_head, window: win });\n    const entries = verifier.entries;\n    const blobFaults = [];\n    let finished = null;\n    const textOf = (e) => lossyUtf8.decode(journal.subarray(e.start, e.end));\n    const meta = $(\"meta\");\n    const metaRow = (k, v, cls) => {\n      const dd = el(\"dd\", cls, v);\n      meta.append(el(\"dt\", void 0, k), dd);\n      return dd;\n    };\n    metaRow(\"Agent\", data.agent_id);\n    metaRow(\"Source\", `${data.source.kind === \"receipt\" ? \"receipt\" : \"journal\"} ${data.source.path}`);\n    const stepsDd = metaRow(\"Steps\", \"\\u2026\");\n    const headDd = metaRow(\"Head hash\", \"\\u2026\", \"hash\");\n    metaRow(\"Generated\", `${data.generated_at} by ${data.generator}`);\n    metaRow(\n      \"Generator check\",\n      gv.ok ? `intact (${plural(gv.steps, \"step\")}, head ${gv.head_hash})` : `${plural(gv.errors.length, \"fault\")}: first ${gv.errors[0]?.kind ?? \"\"} at line ${gv.errors[0]?.line ?? \"-\"}`,\n      \"hash\"\n    );\n    if (win !== null) {\n      metaRow(\n        \"Window\",\n        `lines ${fmtInt(win.first_line)}\\u2013${fmtInt(win.first_line + Math.max(0, verifier.total - 1))} of ${fmtInt(win.total_lines)} are embedded; the first links to step_hash ${win.anchor_hash}, which the generator verified from genesis`,\n        \"hash warn\"\n      );\n    }\n    let signature = null;\n    let signatureKey = null;\n    const signatureFaults = [];\n    let renderSignature = () => {\n    };\n    if (data.receipt !== null) {\n      const r = data.receipt;\n      const manifest = base64Bytes(r.manifest_b64);\n      const sig = r.signature_b64 === null ? null : base64Bytes(r.signature_b64);\n      if (!r.signed || sig === null) {\n        signature = \"unsigned\";\n        if (r.public_keys.length > 0)\n          signatureFaults.push({\n            line: null,\n            kind: \"unsigned\",\n            message: \"manifest.sig: a trusted key was given but the receipt is not signed (no manifest.sig)\"\n          });\n      } else if (r.public_keys.length === 0) {\n        signature = \"not_checked\";\n      } else {\n        const good = r.public_keys.find((k) => verifyEd25519(sig, manifest, base64Bytes(k.raw_b64)));\n        if (good !== void 0) {\n          signature = \"verified\";\n          signatureKey = good.key_id;\n        } else {\n          signature = \"invalid\";\n          signatureFaults.push({\n            line: null,\n            kind: \"signature_invalid\",\n            message: `manifest.sig: the signature does not verify under any trusted key (${r.public_keys.map((k) => k.key_id).join(\", \")})`\n          });\n        }\n      }\n      const sec = $(\"receipt\");\n      sec.hidden = false;\n      const dl = el(\"dl\", \"meta\");\n      const add2 = (k, v, cls) => {\n        const dd = el(\"dd\", cls, v);\n        dl.append(el(\"dt\", void 0, k), dd);\n        return dd;\n      };\n      add2(\"Signed\", r.signed ? \"yes (manifest.sig, Ed25519)\" : \"no\", r.signed ? void 0 : \"warn\");\n      const sigDd = add2(\"Signature\", \"\");\n      add2(\n        \"Keys given to the generator\",\n        r.public_keys.length === 0 ? \"none\" : r.public_keys.map((k) => `${k.key_id} (${k.source})`).join(\"\\n\"),\n        \"hash\"\n      );\n      add2(\"Generator said\", r.signature_check);\n      add2(\"Expected head\", data.expected_head ?? \"(none)\", \"hash\");\n      if (r.generator_faults.length > 0)\n        add2(\"Receipt problems\", r.generator_faults.map((f) => `${f.kind}: ${f.message}`).join(\"\\n\"), \"badtext\");\n      sec.append(dl);\n      renderSignature = () => {\n        sigDd.className = signature === \"verified\" ? \"oktext\" : signature === \"invalid\" ? \"badtext\" : \"warn\";\n        sigDd.textContent = signature === \"verified\" ? `\\u2713 verified in this browser under key ${signatureKey ?? \"\"}` : signature === \"invalid\" ? \"\\u2717 does NOT verify under the given key(s)\" : signature === \"not_checked\" ? \"NOT checked: no public key was given. Paste the signer\\u2019s public key below to check it here.\" : \"unsigned: there is no signature to check\";\n        root.setAttribute(\"data-signature\", signature ?? \"\");\n        if (signatureKey !== null) root.setAttribute(\"data-signature-key\", signatureKey);\n      };\n      renderSignature();\n      if (r.signed && sig !== null) {\n        const box = el(\"div\", \"paste\");\n        const label = el(\n          \"label\",\n          void 0,\n          \"Check the signature with a public key (PEM, or 32 bytes as hex or base64):\"\n        );\n        const area = el(\"textarea\");\n        area.id = \"public-key\";\n        area.rows = 3;\n        area.spellcheck = false;\n        area.placeholder = \"-----BEGIN PUBLIC KEY-----\\n\\u2026\\n-----END PUBLIC KEY-----\";\n        label.append(area);\n        const button = el(\"button\", void 0, \"Check signature\");\n        button.id = \"check-signature\";\n        const result = el(\"div\", \"paste-result\");\n        result.id = \"signature-result\";\n        result.setAttribute(\"role\", \"status\");\n        button.addEventListener(\"click\", () => {\n          const key = parsePastedKey(area.value);\n          if (!key.ok) {\n            result.className = \"paste-result warn\";\n            result.textContent = `Not a usable key: ${key.reason}`;\n            root.setAttribute(\"data-pasted-key\", \"bad_key\");\n            return;\n          }\n          if (verifyEd25519(sig, manifest, key.raw)) {\n            result.className = \"paste-result oktext\";\n            result.textContent = `\\u2713 The manifest signature holds under key ${key.keyId}: this receipt's manifest.json was signed by that key's owner and not changed since (checked in this browser, offline).`;\n            root.setAttribute(\"data-pasted-key\", \"holds\");\n            if (signature === \"not_checked\") {\n              signature = \"verified\";\n              signatureKey = key.keyId;\n              renderSignature();\n              renderVerdict();\n            }\n          } else {\n            result.className = \"paste-result badtext\";\n            result.textContent = `\\u2717 The manifest signature does NOT hold under key ${key.keyId}: either another key signed it, or manifest.json was changed after signing.`;\n            root.setAttribute(\"data-pasted-key\", \"fails\");\n          }\n        });\n        box.append(label, button, result);\n        sec.append(box);\n      }\n      const det = el(\"details\");\n      det.append(el(\"summary\", void 0, \"manifest.json\"));\n      let manifestShown = lossyUtf8.decode(manifest);\n      const parsed = orderedRow(manifestShown);\n      if (parsed !== null) manifestShown = display(parsed);\n      det.append(el(\"pre\", \"code\", manifestShown));\n      sec.append(det);\n      sec.append(\n        el(\n          \"p\",\n          \"note\",\n          \"Checked in this browser: the chain (every step hash, link and seq), that it ends at the manifest head, the bundled blobs\\u2019 digests, and the Ed25519 signature over manifest.json under the keys above or a key you paste. Checked by the generator only: the archive structure and that blob_digests matches the chain.\"\n        )\n      );\n    }\n    const ROW_H = 26;\n    const list = $(\"list\");\n    const spacer = $(\"list-spacer\");\n    const search = $(\"search\");\n    const onlyFaults = $(\"only-faults\");\n    const countEl = $(\"count\");\n    let view = [];\n    let sel = -1;\n    let filterText = \"\";\n    let userMoved = false;\n    const hay = [];\n    const haystack = (i) => {\n      let h = hay[i];\n      if (h === void 0) {\n        const e = entries[i];\n        const r = e.row;\n        h = (r === null ? `line ${e.line} ${textOf(e)}` : `#${r.seq} ${fieldText(r.model)} ${fieldText(r.prompt)} ${fieldText(r.tool_call)} ${fieldText(r.tool_result)} ${r.step_hash}`).toLowerCase();\n        hay[i] = h;\n      }\n      return h;\n    };\n    const matches = (i) => {\n      const e = entries[i];\n      if (onlyFaults.checked && e.faults.length === 0) return false;\n      return filterText === \"\" || haystack(i).includes(filterText);\n    };\n    const rebuildView = () => {\n      const current = sel >= 0 ? view[sel] : void 0;\n      view = [];\n      for (let i = 0; i < entries.length; i++) if (matches(i)) view.push(i);\n      sel = current === void 0 ? view.length > 0 ? 0 : -1 : view.indexOf(current);\n      if (sel < 0 && view.length > 0) sel = 0;\n      renderList(true);\n      renderDetail();\n    };\n    const extendView = (from) => {\n      for (let i = from; i < entries.length; i++) if (matches(i)) view.push(i);\n      if (sel < 0 && view.length > 0) {\n        sel = 0;\n        renderDetail();\n      }\n    };\n    const labelOf = (e) => {\n      const r = e.row;\n      if (r === null) return { n: `L${e.line}`, text: `malformed line: ${textOf(e).slice(0, 80)}` };\n      const call = r.tool_call;\n      const name = call !== null && typeof call === \"object\" && !Array.isArray(call) && !(call instanceof Map) ? call.name : void 0;\n      const tool = typeof name === \"string\" ? `${name} \\xB7 ` : \"\";\n      const p = r.prompt === null ? \"\" : fieldText(r.prompt);\n      return { n: `#${r.seq}`, text: `${tool}${p.slice(0, 120)}` };\n    };\n    let rendered = /* @__PURE__ */ new Map();\n    const renderList = (force = false) => {\n      spacer.style.height = `${view.length * ROW_H}px`;\n      const top = list.scrollTop;\n      const first = Math.max(0, Math.floor(top / ROW_H) - 10);\n      const last = Math.min(view.length, Math.ceil((top + list.clientHeight) / ROW_H) + 10);\n      const next = /* @__PURE__ */ new Map();\n      for (let v = first; v < last; v++) {\n        const idx = view[v];\n        let row = force ? void 0 : rendered.get(v);\n        if (row !== void 0 && row.dataset.entry !== String(idx)) row = void 0;\n        if (row === void 0) {\n          const e = entries[idx];\n          row = el(\"div\", \"item\");\n          row.dataset.entry = String(idx);\n          row.dataset.view = String(v);\n          row.style.top = `${v * ROW_H}px`;\n          const { n, text } = labelOf(e);\n          row.append(el(\"span\", \"n\", n), el(\"span\", \"mark\", e.faults.length > 0 ? \"\\u2717\" : \"\\u2713\"), el(\"span\", \"label\", text));\n          if (e.faults.length > 0) row.classList.add(\"faulty\");\n          rendered.delete(v);\n        }\n        row.classList.toggle(\"selected\", v === sel);\n        row.setAttribute(\"aria-selected\", v === sel ? \"true\" : \"false\");\n        next.set(v, row);\n      }\n      for (const [, old] of rendered) old.remove();\n      for (const [, r] of next) if (r.parentNode !== spacer) spacer.append(r);\n      rendered = next;\n      countEl.textContent = `${fmtInt(view.length)} of ${fmtInt(verifier.total)} lines${entries.length < verifier.total ? \" (verifying\\u2026)\" : \"\"}`;\n      const pos = doc.getElementById(\"detail-position\");\n      if (pos) pos.textContent = sel >= 0 && view.length > 0 ? `${fmtInt(sel + 1)} / ${fmtInt(view.length)} shown` : \"\";\n    };\n    list.addEventListener(\"scroll\", () => renderList());\n    list.addEventListener(\"click\", (ev) => {\n      const item = ev.target.closest(\".item\");\n      if (item?.dataset.view !== void 0) {\n        userMoved = true;\n        select(Number(item.dataset.view));\n      }\n    });\n    const scrollIntoView = () => {\n      if (sel < 0) return;\n      const y = sel * ROW_H;\n      if (y < list.scrollTop) list.scrollTop = y;\n      else if (y + ROW_H > list.scrollTop + list.clientHeight) list.scrollTop = y + ROW_H - list.clientHeight;\n    };\n    const select = (v) => {\n      if (view.length === 0) return;\n      sel = Math.max(0, Math.min(view.length - 1, v));\n      scrollIntoView();\n      renderList();\n      renderDetail();\n    };\n    const jumpToLine = (line) => {\n      if (filterText !== \"\" || onlyFaults.checked) {\n        search.value = \"\";\n        filterText = \"\";\n        onlyFaults.checked = false;\n        rebuildView();\n      }\n      const idx = entries.findIndex((e) => e.line === line);\n      const v = idx < 0 ? -1 : view.indexOf(idx);\n      if (v >= 0) select(v);\n    };\n    const detail = $(\"detail\");\n    const MAX_SHOWN = 2e5;\n    const pre = (s) => {\n      const p = el(\"pre\", \"code\");\n      if (s.length > MAX_SHOWN) {\n        p.textContent = s.slice(0, MAX_SHOWN);\n        const more = el(\"button\", \"more\", `show all ${fmtInt(s.length)} characters`);\n        more.addEventListener(\"click\", () => {\n          p.textContent = s;\n        });\n        const box = el(\"div\");\n        box.append(p, more);\n        return box;\n      }\n      p.textContent = s;\n      return p;\n    };\n    const blobByDigest = /* @__PURE__ */ new Map();\n    for (const b of data.blobs) blobByDigest.set(b.digest, b);\n    const previousRow = (idx) => {\n      for (let j = idx - 1; j >= 0; j--) if (entries[j].row !== null) return entries[j];\n      return null;\n    };\n    const renderDetail = () => {\n      detail.textContent = \"\";\n      if (sel < 0 || view.length === 0) {\n        const why = verifier.total === 0 ? \"The journal has no lines.\" : entries.length === 0 ? \"Verifying\\u2026\" : \"No step matches the search.\";\n        detail.append(el(\"p\", \"note\", why));\n        return;\n      }\n      const idx = view[sel];\n      const e = entries[idx];\n      const r = e.row;\n      const text = textOf(e);\n      const h = el(\"h2\");\n      const position = el(\"span\", \"dim\");\n      position.id = \"detail-position\";\n      position.textContent = `${fmtInt(sel + 1)} / ${fmtInt(view.length)} shown`;\n      h.append(\n        el(\"span\", void 0, r === null ? `Line ${e.line} ` : `Step ${r.seq} `),\n        el(\"span\", \"dim\", `line ${e.line} \\xB7 `),\n        position\n      );\n      detail.append(h);\n      detail.dataset.line = String(e.line);\n      if (e.faults.length > 0) {\n        const ul = el(\"ul\", \"faults\");\n        for (const f of e.faults) ul.append(el(\"li\", void 0, `line ${e.line}: ${f.kind}: ${f.message}`));\n        detail.append(ul);\n      } else if (r !== null) {\n        detail.append(el(\"p\", \"okline\", \"\\u2713 step hash recomputed in this browser and linked to the previous step\"));\n      }\n      if (r === null) {\n        detail.append(el(\"h3\", void 0, \"Raw line\"), pre(text));\n        return;\n      }\n      const shown = orderedRow(text);\n      const field = (k) => shown === null ? void 0 : shown.get(k);\n      const dl = el(\"dl\", \"meta\");\n      const add2 = (k, v, cls) => {\n        const dd = el(\"dd\", cls, v);\n        dl.append(el(\"dt\", void 0, k), dd);\n        return dd;\n      };\n      const ts = r.ts;\n      const tsDate = Number.isFinite(ts) && Math.abs(ts) < 864e10 ? new Date(ts * 1e3).toISOString() : \"\";\n      add2(\"Time\", `${tsDate} (ts ${display(field(\"ts\") ?? null)})`);\n      add2(\"Model\", fieldText(field(\"model\") ?? r.model));\n      add2(\"Input hash\", r.input_hash, \"hash\");\n      add2(\"Prev hash\", r.prev_hash, \"hash\");\n      add2(\"Step hash\", r.step_hash, \"hash\");\n      if (e.computed !== r.step_hash) add2(\"Recomputed\", e.computed ?? \"\", \"hash badtext\");\n      const prev = previousRow(idx);\n      if (prev !== null && prev.row !== null) {\n        const before = orderedRow(textOf(prev));\n        const changes = [];\n        for (const k of HASHED_FIELDS) {\n          const a = prev.row[k];\n          const b = r[k];\n          if (canonicalOfRead(a) === canonicalOfRead(b)) continue;\n          const old = preview(fieldText(before?.get(k) ?? a), 80);\n          const now = preview(fieldText(field(k) ?? b), 80);\n          changes.push(`${k}: ${old === \"\" ? '\"\"' : old} \\u2192 ${now === \"\" ? '\"\"' : now}`);\n        }\n        const dd = add2(\"Changed\", changes.length > 0 ? changes.join(\"\\n\") : \"nothing but the hashes and time\");\n        dd.classList.add(\"changed\");\n      }\n      detail.append(dl);\n      for (const k of [\"prompt\", \"tool_call\", \"tool_result\"]) {\n        const v = field(k) ?? r[k];\n        detail.append(el(\"h3\", void 0, k), pre(typeof v === \"string\" ? v : display(v)));\n      }\n      const refs = r.blob_refs;\n      detail.append(el(\"h3\", void 0, `blob_refs (${refs.length})`));\n      if (refs.length > 0) {\n        const ul = el(\"ul\", \"refs\");\n        for (const d of refs) {\n          const li = el(\"li\");\n          const b = blobByDigest.get(d);\n          li.append(\n            el(\"code\", \"hash\", d),\n            el(\n              \"span\",\n              \"dim\",\n              b === void 0 ? \" (not bundled)\" : b.size === null ? \" (not found)\" : ` ${fmtSize(b.size)}${b.b64 === void 0 ? ` \\xB7 not embedded: ${b.skipped ?? \"\"}` : \"\"}`\n            )\n          );\n          if (b?.b64 !== void 0) li.append(blobPreview(b));\n          ul.append(li);\n        }\n        detail.append(ul);\n      }\n      const raw = el(\"details\");\n      raw.append(el(\"summary\", void 0, \"raw line\"), pre(text));\n      detail.append(raw);\n    };\n    const blobPreview = (b) => {\n      const det = el(\"details\", \"preview\");\n      det.append(el(\"summary\", void 0, \"preview\"));\n      let filled = false;\n      det.addEventListener(\"toggle\", () => {\n        if (filled || !det.open) return;\n        filled = true;\n        const bytes = base64Bytes(b.b64 ?? \"\");\n        const head = bytes.subarray(0, 4096);\n        let binary;\n        let textPreview = \"\";\n        try {\n          textPreview = decodeUtf8(head);\n          binary = /[\\u0000-\\u0008\\u000e-\\u001f]/.test(textPreview);\n        } catch {\n          try {\n            textPreview = decodeUtf8(head.subarray(0, Math.max(0, head.length - 3)));\n            binary = bytes.length <= 4096;\n          } catch {\n            binary = true;\n          }\n        }\n        if (binary) {\n          let hex = \"\";\n          for (let i = 0; i < Math.min(512, bytes.length); i++)\n            hex += bytes[i].toString(16).padStart(2, \"0\") + (i % 16 === 15 ? \"\\n\" : \" \");\n          textPreview = `binary, first ${Math.min(512, bytes.length)} bytes:\n${hex}`;\n        } else if (bytes.length > 4096) textPreview += `\n\\u2026 (${fmtSize(bytes.length)} in all)`;\n        det.append(el(\"pre\", \"code\", textPreview));\n      });\n      return det;\n    };\n    const blobsSec = $(\"blobs\");\n    const blobChecked = /* @__PURE__ */ new Map();\n    const blobStatusText = (b) => {\n      if (b.b64 === void 0) return `not embedded: ${b.skipped ?? \"unknown\"}`;\n      const c = blobChecked.get(b.digest);\n      return c === void 0 ? \"embedded (digest not checked yet)\" : c === true ? \"embedded, digest verified \\u2713\" : `digest MISMATCH: bytes hash to ${c}`;\n    };\n    let renderBlobs = () => {\n    };\n    if (data.blobs.length > 0) {\n      blobsSec.hidden = false;\n      const summary = el(\"p\", \"note\");\n      summary.id = \"blob-summary\";\n      const table = el(\"table\", \"blobs\");\n      const more = el(\"button\", \"more\");\n      more.id = \"blob-more\";\n      let shownRows = 0;\n      const statusCells = /* @__PURE__ */ new Map();\n      const addRows = (n) => {\n        const stop = Math.min(data.blobs.length, shownRows + n);\n        for (; shownRows < stop; shownRows++) {\n          const b = data.blobs[shownRows];\n          const tr = el(\"tr\");\n          const st = el(\"td\", void 0, blobStatusText(b));\n          statusCells.set(b.digest, st);\n          const pv = el(\"td\");\n          if (b.b64 !== void 0) pv.append(blobPreview(b));\n          tr.append(el(\"td\", \"hash\", b.digest), el(\"td\", void 0, b.size === null ? \"-\" : fmtSize(b.size)), st, pv);\n          table.append(tr);\n        }\n        const left = data.blobs.length - shownRows;\n        more.hidden = left === 0;\n        more.textContent = `show ${fmtInt(Math.min(BLOB_PAGE, left))} more (${fmtInt(left)} not shown)`;\n      };\n      more.addEventListener(\"click\", () => addRows(BLOB_PAGE));\n      renderBlobs = () => {\n        const counts = /* @__PURE__ */ new Map();\n        for (const b of data.blobs) {\n          const s = b.b64 === void 0 ? `not embedded: ${b.skipped ?? \"unknown\"}` : blobChecked.get(b.digest) === void 0 ? \"embedded, not checked yet\" : blobChecked.get(b.digest) === true ? \"embedded, digest verified\" : \"embedded, digest MISMATCH\";\n          counts.set(s, (counts.get(s) ?? 0) + 1);\n        }\n        const embedded = data.blobs.filter((b) => b.b64 !== void 0).length;\n        summary.textContent = `${plural(data.blobs.length, \"referenced blob\")}: ${fmtInt(embedded)} embedded (cap ${fmtSize(data.blob_caps.per_blob)} each, ${fmtSize(data.blob_caps.total)} in all). ` + [...counts].map(([s, n]) => `${fmtInt(n)} ${s}`).join(\"; \") + \".\";\n        for (const [d, cell] of statusCells) {\n          const b = blobByDigest.get(d);\n          cell.textContent = blobStatusText(b);\n          cell.className = blobChecked.get(d) !== void 0 && blobChecked.get(d) !== true ? \"badtext\" : \"\";\n        }\n      };\n      const thead = el(\"tr\");\n      for (const t of [\"digest\", \"size\", \"status\", \"\"]) thead.append(el(\"th\", void 0, t));\n      table.append(thead);\n      blobsSec.append(summary, table, more);\n      addRows(BLOB_PAGE);\n      renderBlobs();\n    }\n    if (data.forks !== null) {\n      const sec = $(\"forks\");\n      sec.hidden = false;\n      const draw = (n) => {\n        const li = el(\"li\");\n        const bits = [n.id];\n        if (n.label) bits.push(`\\u201C${n.label}\\u201D`);\n        if (n.from_step !== void 0 && n.from_step !== null) bits.push(`from step ${n.from_step}`);\n        if (n.branch) bits.push(`branch ${n.branch}`);\n        if (n.steps_since !== void 0 && n.steps_since !== null)\n          bits.push(`+${n.steps_since} step${n.steps_since === 1 ? \"\" : \"s\"} since`);\n        if (n.journal_ok === false) bits.push(\"JOURNAL DOES NOT VERIFY\");\n        if (n.missing) bits.push(\"WORKTREE MISSING\");\n        if (n.current) bits.push(\"(this report)\");\n        const span = el(\n          \"span\",\n          n.current ? \"node current\" : n.journal_ok === false || n.missing ? \"node badnode\" : \"node\",\n          bits.join(\" \\xB7 \")\n        );\n        li.append(span);\n        if (n.children.length > 0) {\n          const ul2 = el(\"ul\");\n          for (const c of n.children) ul2.append(draw(c));\n          li.append(ul2);\n        }\n        return li;\n      };\n      const ul = el(\"ul\", \"tree\");\n      ul.append(draw(data.forks));\n      sec.append(ul);\n    }\n    let searchTimer;\n    search.addEventListener(\"input\", () => {\n      if (searchTimer !== void 0) clearTimeout(searchTimer);\n      searchTimer = setTimeout(() => {\n        filterText = search.value.trim().toLowerCase();\n        rebuildView();\n      }, 120);\n    });\n    onlyFaults.addEventListener(\"change\", () => rebuildView());\n    doc.addEventListener(\"keydown\", (ev) => {\n      const t = ev.target;\n      if (t !== null && t.tagName === \"TEXTAREA\") return;\n      if (t !== null && t.tagName === \"INPUT\") {\n        if (ev.key === \"Escape\") {\n          search.value = \"\";\n          filterText = \"\";\n          rebuildView();\n          search.blur();\n        } else if (ev.key === \"Enter\" || ev.key === \"ArrowDown\") {\n          if (searchTimer !== void 0) clearTimeout(searchTimer);\n          filterText = search.value.trim().toLowerCase();\n          rebuildView();\n          search.blur();\n          ev.preventDefault();\n        }\n        return;\n      }\n      if (ev.ctrlKey || ev.metaKey || ev.altKey) return;\n      const page = Math.max(1, Math.floor(list.clientHeight / ROW_H) - 1);\n      let to;\n      switch (ev.key) {\n        case \"ArrowRight\":\n        case \"ArrowDown\":\n        case \"j\":\n          to = sel + 1;\n          break;\n        case \"ArrowLeft\":\n        case \"ArrowUp\":\n        case \"k\":\n          to = sel - 1;\n          break;\n        case \"Home\":\n        case \"g\":\n          to = 0;\n          break;\n        case \"End\":\n        case \"G\":\n          to = view.length - 1;\n          break;\n        case \"PageDown\":\n          to = sel + page;\n          break;\n        case \"PageUp\":\n          to = sel - page;\n          break;\n        case \"/\":\n          search.focus();\n          ev.preventDefault();\n          return;\n        default:\n          return;\n      }\n      ev.preventDefault();\n      userMoved = true;\n      select(to);\n    });\n    const status = $(\"status\");\n    const title = $(\"status-title\");\n    const statusDetail = $(\"status-detail\");\n    const bar = $(\"progress-bar\");\n    const faultList = $(\"faults\");\n    root.setAttribute(\"data-verify-state\", \"running\");\n    const showFaults = (errors) => {\n      faultList.textContent = \"\";\n      const shown = errors.slice(0, 200);\n      for (const f of shown) {\n        const li = el(\"li\");\n        if (f.line !== null) {\n          const a = el(\"button\", \"linklike\", `line ${f.line}`);\n          const line = f.line;\n          a.addEventListener(\"click\", () => jumpToLine(line));\n          li.append(a, el(\"span\", void 0, `: ${f.kind}: ${f.message}`));\n        } else li.textContent = `${f.kind}: ${f.message}`;\n        faultList.append(li);\n      }\n      if (errors.length > shown.length)\n        faultList.append(\n          el(\n            \"li\",\n            void 0,\n            `\\u2026 and ${errors.length - shown.length} more (tick \\u201Conly faults\\u201D to list every faulty line)`\n          )\n        );\n    };\n    const outsideFaults = () => {\n      if (win === null) return [];\n      const last = win.first_line + verifier.total - 1;\n      const reachesEnd = last >= win.total_lines;\n      return gv.errors.filter((f) => f.line === null ? !reachesEnd : f.line < win.first_line || f.line > last).map((f) => ({ ...f, message: `${f.message} (outside the embedded window: checked by the generator)` }));\n    };\n    const renderVerdict = () => {\n      if (finished === null) return [];\n      const r = finished;\n      const receiptFaults = (data.receipt?.generator_faults ?? []).map((f) => ({\n        ...f,\n        message: `${f.message} (checked by the generator)`\n      }));\n      const errors = [...r.errors, ...outsideFaults(), ...blobFaults, ...receiptFaults, ...signatureFaults];\n      const steps = win === null ? r.steps : win.total_steps;\n      stepsDd.textContent = win === null ? fmtInt(r.steps) : `${fmtInt(win.total_steps)} (${fmtInt(r.steps)} embedded and checked here)`;\n      headDd.textContent = errors.length === 0 ? r.head_hash : `${r.head_hash} (the last stored step_hash: not vouched for)`;\n      bar.style.width = \"100%\";\n      root.setAttribute(\"data-verify-state\", \"done\");\n      root.setAttribute(\"data-steps\", String(steps));\n      root.setAttribute(\"data-head-hash\", r.head_hash);\n      if (errors.length === 0 && signature === \"not_checked\") {\n        status.className = \"status warn\";\n        title.textContent = \"\\u26A0 Chain intact, but the signature was NOT checked\";\n        statusDetail.textContent = `The chain verified in this browser (head ${r.head_hash}), but the receipt is signed and no public key was given: who signed it is not established. Paste the signer\\u2019s public key below to check it here, offline.`;\n        faultList.textContent = \"\";\n        root.setAttribute(\"data-verified\", \"false\");\n        root.setAttribute(\"data-first-fault-kind\", \"no_trusted_key\");\n        root.setAttribute(\"data-fault-count\", \"1\");\n        root.removeAttribute(\"data-first-fault-line\");\n      } else if (errors.length === 0) {\n        status.className = \"status ok\";\n        const what = win === null ? `${plural(r.steps, \"step\")} verified in this browser` : `steps ${fmtInt(win.first_seq)}\\u2013${fmtInt(win.first_seq + Math.max(0, r.steps - 1))} of ${fmtInt(win.total_steps)} verified in this browser`;\n        title.textContent = `\\u2713 Chain intact: ${what}${signature === \"verified\" ? \"; signature verified\" : \"\"}`;\n        statusDetail.textContent = win === null ? `Every step hash was recomputed from the canonical JSON of its fields and every link checked, from genesis to head ${r.head_hash}.` : `Every embedded step hash was recomputed and every link checked, from the generator-verified step_hash ${win.anchor_hash} to head ${r.head_hash}. The ${fmtInt(win.total_steps - r.steps)} steps outside the window are not in this file.`;\n        faultList.textContent = \"\";\n        root.setAttribute(\"data-verified\", \"true\");\n        for (const a of [\"data-first-fault-kind\", \"data-first-fault-line\", \"data-fault-count\"]) root.removeAttribute(a);\n      } else {\n        const first = errors[0];\n        status.className = \"status bad\";\n        title.textContent = `\\u2717 TAMPERED OR BROKEN: ${plural(errors.length, \"fault\")}${first.line !== null ? `, first at line ${first.line}` : \"\"}`;\n        statusDetail.textContent = \"Do not trust this run as recorded. The faults below were found by recomputing the chain in this browser, unless marked otherwise.\";\n        showFaults(errors);\n        root.setAttribute(\"data-verified\", \"false\");\n        root.setAttribute(\"data-first-fault-kind\", first.kind);\n        if (first.line !== null) root.setAttribute(\"data-first-fault-line\", String(first.line));\n        else root.removeAttribute(\"data-first-fault-line\");\n        root.setAttribute(\"data-fault-count\", String(errors.length));\n      }\n      if (win === null && (r.ok !== gv.ok || r.head_hash !== gv.head_hash)) {\n        statusDetail.textContent += ` Warning: the generator's own check disagreed (${gv.ok ? \"intact\" : \"faults\"}, head ${gv.head_hash}).`;\n      }\n      renderList();\n      return errors;\n    };\n    const finish = () => {\n      finished = verifier.result();\n      const errors = renderVerdict();\n      const first = errors[0];\n      if (!userMoved && first !== void 0 && first.line !== null && filterText === \"\") jumpToLine(first.line);\n    };\n    const blobQueue = data.blobs.filter((b) => b.b64 !== void 0);\n    const checkBlob = (b) => {\n      const got = sha256Hex(base64Bytes(b.b64 ?? \"\"));\n      if (got === b.digest) blobChecked.set(b.digest, true);\n      else {\n        blobChecked.set(b.digest, got);\n        blobFaults.push({ line: null, kind: \"blob_digest_mismatch\", message: `blob ${b.digest} hashes to ${got}` });\n      }\n    };\n    const tick = () => {\n      try {\n        const t0 = performance.now();\n        const before = entries.length;\n        let done = false;\n        while (!done && performance.now() - t0 < 12) done = verifier.run(64);\n        extendView(before);\n        const pct = verifier.total === 0 ? 100 : Math.floor(entries.length / verifier.total * 100);\n        bar.style.width = `${pct}%`;\n        title.textContent = `Verifying in this browser\\u2026 ${fmtInt(entries.length)} / ${fmtInt(verifier.total)} lines`;\n        renderList(before === 0);\n        if (!done) {\n          setTimeout(tick, 0);\n          return;\n        }\n        while (blobQueue.length > 0 && performance.now() - t0 < 12) checkBlob(blobQueue.shift());\n        if (blobQueue.length > 0) {\n          title.textContent = `Checking bundled blobs\\u2026 ${fmtInt(blobQueue.length)} left`;\n          renderBlobs();\n          setTimeout(tick, 0);\n          return;\n        }\n        renderBlobs();\n        finish();\n      } catch (e) {\n        fail(\"report_error\", `verification stopped: ${e.message}`);\n      }\n    };\n    setTimeout(tick, 0);\n  }\n\n  // src/report/client/main.ts\n  startReport(document);\n})();\n";

;// CONCATENATED MODULE: ./src/report/page.ts


/**
 * The report page: static skeleton, inline style, inline script and the embedded
 * data. The script is src/report/client bundled by scripts/build-page.mjs (the same
 * src/canonical and src/journal code the CLI runs, @noble/hashes and
 * @noble/ed25519), carried as a string constant. A Content-Security-Policy allows
 * only that exact script and style (by hash) and no fetch of any kind: the page
 * works, and can only work, offline.
 */
function pageScript() {
    return PAGE_SCRIPT;
}
const STYLE = `
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
`;
const escapeHtml = (s) => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);
/** JSON safe inside a `<script>` element: no `<`, `>`, `&` or line separators left as is. */
function scriptJson(data) {
    return JSON.stringify(data).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
const cspHash = (s) => `'sha256-${(0,external_node_crypto_namespaceObject.createHash)('sha256').update(s, 'utf8').digest('base64')}'`;
/** The whole page for the embedded data. */
function buildPage(data) {
    const script = page_script_generated_PAGE_SCRIPT;
    const csp = [
        "default-src 'none'",
        `script-src ${cspHash(script)}`,
        `style-src ${cspHash(STYLE)}`,
        "img-src 'none'",
        "base-uri 'none'",
        "form-action 'none'",
    ].join('; ');
    return `<!DOCTYPE html>
<html lang="en" data-verify-state="pending">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${escapeHtml(csp)}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="stepchain report">
<title>${escapeHtml(data.title)}</title>
<style>${STYLE}</style>
</head>
<body>
<header>
<h1>${escapeHtml(data.title)}</h1>
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
<span class="dim"><kbd>←</kbd><kbd>→</kbd> or <kbd>j</kbd><kbd>k</kbd> step · <kbd>Home</kbd><kbd>End</kbd> first/last · <kbd>/</kbd> search · <kbd>Esc</kbd> clear</span>
</div>
</section>
<main>
<div id="list" role="listbox" aria-label="Steps" tabindex="0"><div id="list-spacer"></div></div>
<div id="detail" aria-live="polite"></div>
</main>
<section id="blobs" hidden><h2>Blobs</h2></section>
<section id="forks" hidden><h2>Fork tree</h2></section>
<footer>Generated by ${escapeHtml(data.generator)} at ${escapeHtml(data.generated_at)}. Self-contained: no network access; the journal's exact bytes are embedded and every hash is recomputed here.</footer>
<script type="application/json" id="stepchain-data">${scriptJson(data)}</script>
<script>${script}</script>
</body>
</html>
`;
}

;// CONCATENATED MODULE: ./src/report/source.ts






/**
 * Blobs from a project's CAS. Never through a symbolic link anywhere below the
 * project root (a committed link could point at `.git/config`), and never more
 * than the caller's cap; the caller hashes what it gets against the name.
 */
function source_casSource(root) {
    if (root === undefined)
        return { size: () => undefined, read: () => undefined };
    const cas = new Cas(casDir(root), false);
    const rel = (digest) => external_node_path_default().relative(root, cas.pathOf(digest));
    return {
        size(digest) {
            const st = nofollow_lstatUnder(root, rel(digest));
            return st.kind === 'file' ? st.size : undefined;
        },
        read(digest, maxBytes) {
            const r = nofollow_readUnder(root, rel(digest), maxBytes);
            return r.kind === 'file' ? r.bytes : undefined;
        },
        refused(digest) {
            const st = nofollow_lstatUnder(root, rel(digest));
            return st.kind === 'symlink' ? `${st.at} is a symbolic link (never followed)` : undefined;
        },
    };
}
function mapSource(blobs) {
    return { size: (d) => blobs.get(d)?.length, read: (d) => blobs.get(d) };
}
/** The chain's blob refs, first occurrence order (malformed lines skipped). */
function blobRefsOf(journal) {
    return blobDigestsOf(readJournalBytes(journal).entries.map((e) => e.row.blob_refs));
}
function receiptSource(file, options) {
    const loaded = loadReceipt(file);
    const keys = options.publicKeys ?? [];
    const checked = verifyReceipt(file, { publicKeys: keys });
    const faults = [];
    for (const f of checked.errors) {
        // The page re-checks the chain itself.
        if (f.member === JOURNAL_MEMBER && f.kind !== 'non_canonical')
            continue;
        // The page checks the head against the manifest, and the generator hashes every blob it lists.
        // A signature nobody checked stays a fault (see signatureVerdict): the verdict is never green on it.
        if (f.kind === 'manifest_head_mismatch' || f.kind === 'blob_digest_mismatch')
            continue;
        faults.push({
            line: f.line ?? null,
            kind: f.kind,
            message: `${f.member === undefined ? '' : `${f.member}: `}${f.message}`,
        });
    }
    const signed = loaded.signature !== undefined;
    const verdict = signatureVerdict(checked, keys.length);
    const signatureCheck = verdict.status === 'unsigned'
        ? 'unsigned: there is no signature to check'
        : verdict.status === 'not_checked'
            ? 'signature NOT checked: no trusted public key was given to the generator (stepchain report --public-key FILE)'
            : verdict.status === 'verified'
                ? `verified by the generator (Ed25519, node:crypto) under trusted key ${checked.key_id ?? ''}`
                : verdict.status === 'invalid'
                    ? `FAILED: the signature does not verify under the given key(s) ${keys.map((k) => k.keyId).join(', ')}`
                    : verdict.text;
    const refs = blobRefsOf(loaded.journal);
    const order = [...refs, ...loaded.manifest.blob_digests.filter((d) => !refs.includes(d))];
    return {
        kind: 'receipt',
        path: file,
        agentId: loaded.manifest.agent_id,
        journal: loaded.journal,
        expectedHead: loaded.manifest.head_hash,
        blobs: mapSource(loaded.blobs),
        blobOrder: order,
        receipt: {
            manifestBytes: loaded.manifestBytes,
            ...(loaded.signature === undefined ? {} : { signature: loaded.signature }),
            publicKeys: keys.map((k) => ({ keyId: k.keyId, raw: k.raw, source: k.source })),
            signed,
            keyId: checked.key_id,
            signatureCheck,
            faults,
        },
    };
}
/**
 * Resolves `<agent|dir|file|receipt>` into a report source. Blobs of a journal
 * come from its project's CAS (the project is found from the journal's path, else
 * `root`); a receipt's from its `blobs/` members. Missing input: InputError.
 */
function source_loadReportSource(target, root, options = {}) {
    const asPath = external_node_path_default().resolve(target);
    if (looksLikeReceipt(asPath)) {
        let st;
        try {
            st = (0,external_node_fs_namespaceObject.statSync)(asPath);
        }
        catch {
            throw new errors_InputError(`${target}: no such receipt file`);
        }
        if (!st.isFile())
            throw new errors_InputError(`${target}: not a regular file`);
        return receiptSource(asPath, options);
    }
    const j = resolveJournal(target, root);
    const journal = readJournalFileBytes(j.file);
    return { kind: 'journal', path: j.file, agentId: j.agentId, journal, blobs: source_casSource(projectRootOf(j.dir) ?? root) };
}

;// CONCATENATED MODULE: ./src/report/report.ts








const DEFAULT_MAX_BLOB_BYTES = 256 * 1024;
const DEFAULT_MAX_TOTAL_BLOB_BYTES = 20 * 1024 * 1024;
/** Past this many embedded steps a browser takes long to open and verify the page: say so. */
const DEFAULT_WARN_STEPS = 50_000;
const DEFAULT_WARN_BYTES = 64 * 1024 * 1024;
/** Receipt faults the page re-derives itself by checking the Ed25519 signature in the browser. */
const SIGNATURE_KINDS = new Set(['signature_invalid', 'unsigned', 'no_trusted_key']);
/** Byte offset of the start of each line (and one past the end). */
function lineStarts(buf) {
    const starts = [0];
    for (let nl = buf.indexOf(0x0a); nl >= 0 && nl + 1 < buf.length; nl = buf.indexOf(0x0a, nl + 1))
        starts.push(nl + 1);
    starts.push(buf.length);
    return starts;
}
/**
 * The lines to embed when `maxSteps` asks for a window: `maxSteps` well-formed rows
 * from `fromStep` (default: the last ones), with the lines between them, anchored
 * to the stored step_hash of the row before (the state the chain walk has there).
 */
function reportWindow(journal, maxSteps, fromStep) {
    if (!Number.isSafeInteger(maxSteps) || maxSteps < 1)
        throw new errors_InputError(`--max-steps ${maxSteps}: not a positive integer`);
    const rows = readJournalBytes(journal).entries;
    let first;
    if (fromStep !== undefined) {
        first = rows.findIndex((e) => e.row.seq === fromStep);
        if (first < 0)
            throw new errors_InputError(`--from ${fromStep}: no step with that seq (the journal has ${rows.length} well-formed steps)`);
    }
    else
        first = Math.max(0, rows.length - maxSteps);
    const starts = lineStarts(journal);
    const totalLines = starts.length - 1;
    const lastRow = Math.min(rows.length, first + maxSteps) - 1;
    const firstLine = first === 0 ? 1 : rows[first].line;
    const lastLine = lastRow === rows.length - 1 ? totalLines : rows[lastRow].line;
    if (firstLine === 1 && lastLine === totalLines)
        return null;
    const before = first === 0 ? undefined : rows[first - 1].row;
    return {
        bytes: journal.subarray(starts[firstLine - 1], starts[lastLine]),
        window: {
            first_line: firstLine,
            first_seq: before === undefined ? 0 : before.seq + 1,
            anchor_hash: before === undefined ? ZERO_HASH : before.step_hash,
            total_lines: totalLines,
            total_steps: rows.length,
        },
        lastLine,
        steps: lastRow - first + 1,
    };
}
/** Picks the blobs to embed under the caps, in chain order; the rest are listed with the reason. */
function collectBlobs(source, order, perBlob, total) {
    const blobs = [];
    const faults = [];
    let used = 0;
    for (const digest of order) {
        const refused = source.blobs.refused?.(digest);
        if (refused !== undefined) {
            blobs.push({ digest, size: null, skipped: refused });
            faults.push({ line: null, kind: 'blob_refused', message: `blob ${digest}: ${refused}` });
            continue;
        }
        const size = source.blobs.size(digest);
        if (size === undefined) {
            blobs.push({
                digest,
                size: null,
                skipped: source.kind === 'receipt' ? 'not bundled in the receipt' : 'not in the project\u2019s blob store',
            });
            continue;
        }
        // Over the cap: listed, never read.
        if (size > perBlob) {
            blobs.push({ digest, size, skipped: `larger than the ${perBlob}-byte per-blob cap` });
            continue;
        }
        const bytes = source.blobs.read(digest, perBlob);
        if (bytes === undefined) {
            blobs.push({ digest, size: null, skipped: 'unreadable' });
            continue;
        }
        // A blob is embedded only when its bytes are what its name says.
        const got = sha256Hex(bytes);
        if (got !== digest) {
            faults.push({ line: null, kind: 'blob_digest_mismatch', message: `blob ${digest}: its bytes hash to ${got}` });
            blobs.push({ digest, size: bytes.length, skipped: 'its bytes do not match its digest (not embedded)' });
            continue;
        }
        if (used + bytes.length > total) {
            blobs.push({ digest, size: bytes.length, skipped: `the ${total}-byte total cap was reached` });
            continue;
        }
        used += bytes.length;
        blobs.push({ digest, size: bytes.length, b64: bytes.toString('base64') });
    }
    return { blobs, faults };
}
/**
 * Renders the self-contained HTML report of a source. A broken chain is rendered
 * too (the page shows the faults): check `ok`.
 */
function renderReport(source, options = {}) {
    const chain = verifyJournalBytes(source.journal, source.expectedHead === undefined ? {} : { expectedHead: source.expectedHead });
    if (options.fromStep !== undefined && options.maxSteps === undefined)
        throw new errors_InputError('--from needs --max-steps (the size of the window)');
    const windowed = options.maxSteps === undefined ? null : reportWindow(source.journal, options.maxSteps, options.fromStep);
    const embeddedJournal = windowed === null ? source.journal : windowed.bytes;
    // A window lists only the blobs its own rows refer to.
    const order = windowed !== null ? blobRefsOf(embeddedJournal) : (source.blobOrder ?? blobRefsOf(source.journal));
    const { blobs, faults: blobFaults } = collectBlobs(source, order, options.maxBlobBytes ?? DEFAULT_MAX_BLOB_BYTES, options.maxTotalBlobBytes ?? DEFAULT_MAX_TOTAL_BLOB_BYTES);
    const receiptFaults = source.receipt?.faults ?? [];
    const r = source.receipt;
    const data = {
        format: 2,
        generator: PRODUCER,
        generated_at: (options.now ?? new Date()).toISOString().replace(/\.\d{3}Z$/, 'Z'),
        title: options.title ?? `stepchain report: ${source.agentId}`,
        agent_id: source.agentId,
        source: { kind: source.kind, path: source.path },
        journal_b64: embeddedJournal.toString('base64'),
        expected_head: source.expectedHead ?? null,
        generator_verify: { ok: chain.ok, head_hash: chain.head_hash, steps: chain.steps, errors: chain.errors },
        window: windowed?.window ?? null,
        receipt: r === undefined
            ? null
            : {
                manifest_b64: r.manifestBytes.toString('base64'),
                signature_b64: r.signature?.toString('base64') ?? null,
                signed: r.signed,
                public_keys: r.publicKeys.map((k) => ({
                    key_id: k.keyId,
                    raw_b64: k.raw.toString('base64'),
                    source: k.source,
                })),
                key_id: r.keyId,
                signature_check: r.signatureCheck,
                // The page checks the signature itself, with the same keys.
                generator_faults: receiptFaults.filter((f) => !SIGNATURE_KINDS.has(f.kind)),
            },
        blobs,
        blob_caps: {
            per_blob: options.maxBlobBytes ?? DEFAULT_MAX_BLOB_BYTES,
            total: options.maxTotalBlobBytes ?? DEFAULT_MAX_TOTAL_BLOB_BYTES,
        },
        forks: options.forks ?? source.forks ?? null,
    };
    const errors = [...chain.errors, ...blobFaults, ...receiptFaults];
    const embedded = blobs.filter((b) => b.b64 !== undefined).length;
    const html = buildPage(data);
    const embeddedSteps = windowed === null ? chain.steps : windowed.steps;
    const warnings = [];
    const warnSteps = options.warnSteps ?? DEFAULT_WARN_STEPS;
    if (embeddedSteps > warnSteps || html.length > (options.warnBytes ?? DEFAULT_WARN_BYTES)) {
        warnings.push(`the page embeds ${embeddedSteps} steps (${(html.length / 1048576).toFixed(0)} MB): a browser takes long to open and verify it; ` +
            `embed a window with --max-steps N (the last N steps, or from --from SEQ)`);
    }
    return {
        html,
        source: source.path,
        ok: errors.length === 0,
        head_hash: chain.head_hash,
        steps: chain.steps,
        errors,
        blobs: { embedded, skipped: blobs.length - embedded },
        window: windowed === null
            ? null
            : { first_line: windowed.window.first_line, last_line: windowed.lastLine, steps: windowed.steps },
        warnings,
    };
}
const GENERATOR_MARK = '<meta name="generator" content="stepchain report">';
/** Overwriting is allowed for a previous report; anything else needs `force` (a mistyped -o must not eat a file). */
function checkOverwrite(outFile, force) {
    let st;
    try {
        st = (0,external_node_fs_namespaceObject.statSync)(outFile);
    }
    catch {
        return;
    }
    if (st.isDirectory())
        throw new errors_InputError(`${outFile}: is a directory`);
    if (force)
        return;
    let head = '';
    try {
        const fd = (0,external_node_fs_namespaceObject.openSync)(outFile, 'r');
        try {
            const buf = Buffer.alloc(2048);
            head = buf.subarray(0, (0,external_node_fs_namespaceObject.readSync)(fd, buf, 0, buf.length, 0)).toString('latin1');
        }
        finally {
            (0,external_node_fs_namespaceObject.closeSync)(fd);
        }
    }
    catch {
        /* unreadable: treated as foreign */
    }
    if (!head.includes(GENERATOR_MARK)) {
        throw new errors_InputError(`${outFile}: exists and is not a stepchain report; refusing to overwrite it (use --force)`);
    }
}
/**
 * Resolves a target (or takes a loaded source), renders the report and writes it
 * atomically (temporary file, fsync, rename): the file is either the old one or
 * the complete new one. Throws InputError for bad input or a refused overwrite.
 */
function report_writeReport(target, outFile, options = {}) {
    checkOverwrite(outFile, options.force ?? false);
    const source = typeof target === 'string' ? source_loadReportSource(target, options.root ?? process.cwd(), options) : target;
    const { html, ...rest } = renderReport(source, options);
    export_writeFileAtomic(outFile, Buffer.from(html, 'utf8'));
    return { file: outFile, ...rest };
}

;// CONCATENATED MODULE: ./src/report/forks.ts

/** One fork as the page draws it. */
function toReportNode(n, current) {
    return {
        id: n.fork_session_id,
        label: n.label,
        branch: n.branch,
        from_step: n.from_step,
        parent_step_hash: n.parent_step_hash,
        steps_since: n.steps_since,
        journal_ok: n.journal_ok,
        missing: n.missing,
        current: n.fork_session_id === current,
        children: n.children.map((c) => toReportNode(c, current)),
    };
}
/**
 * The fork tree around a run, for the report: rooted at the session the run's
 * forks (or, for a fork, its top ancestor) came from, the run itself marked
 * `current`. Null when the project is not a git repository or the run has no forks.
 */
function forkTreeOf(forest, agentId) {
    const parentOf = new Map();
    const walk = (list) => {
        for (const n of list) {
            parentOf.set(n.fork_session_id, n.parent_session_id);
            walk(n.children);
        }
    };
    walk(forest);
    let session = agentId;
    const seen = new Set();
    while (parentOf.has(session) && !seen.has(session)) {
        seen.add(session);
        const p = parentOf.get(session);
        if (p === null || p === undefined)
            break;
        session = p;
    }
    const tops = forest.filter((n) => n.parent_session_id === session);
    if (tops.length === 0)
        return null;
    return { id: session, current: session === agentId, children: tops.map((n) => toReportNode(n, agentId)) };
}
/** `forkTreeOf(listForks(root))`, or null outside a git repository. */
async function reportForkTree(root, agentId, env = process.env) {
    if (repo_repoInfo(root, env) === undefined)
        return null;
    return forkTreeOf(await listForks(root, env), agentId);
}

;// CONCATENATED MODULE: ./src/report/index.ts





;// CONCATENATED MODULE: ./src/check/html.ts






/**
 * Self-contained HTML reports (src/report) for the per-step journals and receipts
 * of a check, written for an artifact a reviewer downloads and opens offline.
 * Blob embedding is capped lower than the CLI's default to keep artifacts small.
 * A checkout's files are read without following a link (a repository-relative
 * path); an absolute path is a file the Action wrote itself (an exported receipt).
 */
function sourceOf(i, root) {
    if (path.isAbsolute(i.path))
        return loadReportSource(i.path, root);
    if (i.kind === 'receipt') {
        const st = lstatUnder(root, i.path);
        if (st.kind !== 'file')
            throw new IntegrityError(st.kind === 'symlink' ? `${st.at} is a symbolic link` : 'not a regular file');
        return loadReportSource(path.join(root, i.path), root);
    }
    const r = readUnder(root, i.path);
    if (r.kind !== 'file')
        throw new IntegrityError(r.kind === 'symlink' ? `${r.at} is a symbolic link` : 'not a regular file');
    return { kind: 'journal', path: i.path, agentId: i.id, journal: r.bytes, blobs: casSource(root) };
}
function writeHtmlReports(items, options) {
    const out = { files: [], warnings: [] };
    const wanted = items.filter((i) => (i.kind === 'journal' || i.kind === 'receipt') && i.status !== 'deleted');
    const limit = options.limit ?? 100;
    if (wanted.length > limit)
        out.warnings.push(`HTML reports: ${wanted.length - limit} of ${wanted.length} left out (limit ${limit})`);
    if (wanted.length > 0)
        mkdirSync(options.outDir, { recursive: true });
    const used = new Set();
    for (const i of wanted.slice(0, limit)) {
        let name = `${i.kind}-${i.id.replace(/[^A-Za-z0-9_.-]/g, '_')}`;
        for (let n = 2; used.has(name); n++)
            name = `${i.kind}-${i.id.replace(/[^A-Za-z0-9_.-]/g, '_')}-${n}`;
        used.add(name);
        const file = path.join(options.outDir, `${name}.html`);
        try {
            writeReport(sourceOf(i, options.root), file, {
                root: options.root,
                force: true,
                maxTotalBlobBytes: options.maxTotalBlobBytes ?? 2 * 1024 * 1024,
                title: `stepchain: ${i.path}`,
            });
            out.files.push(file);
        }
        catch (e) {
            if (!(e instanceof StepchainError))
                throw e;
            out.warnings.push(`HTML report for ${i.path}: ${e.message}`);
        }
    }
    return out;
}

;// CONCATENATED MODULE: ./src/check/index.ts












;// CONCATENATED MODULE: ./src/cli/commands/check.ts





/** The Action's verify mode, locally: `stepchain check --base origin/main` before pushing. */
const checkCommand = {
    name: ['check'],
    usage: '[--root DIR] [--base REF] [--journals GLOB]... [--runs GLOB]... [--receipts GLOB]... [--public-key FILE]... [--expected-heads FILE] [--warn-flagged] [--allow-empty] [--markdown] [--json]',
    summary: "Check a repository's committed journals, run journals and receipts as the GitHub Action does; with --base, history must only be appended to since REF. A check that matches nothing fails unless --allow-empty. Exit 0 holds, 1 not.",
    description: 'Finds the journals, run journals and receipts by the globs (defaults as the Action), verifies each, and with --base ' +
        'checks that every journal at REF was only appended to. A signed receipt fails unless a --public-key checks it.',
    options: {
        ...ROOT_OPTION,
        ...JSON_OPTION,
        base: {
            kind: 'value',
            value: 'REF',
            description: 'A commit (branch, tag, hash) whose journals must only have been appended to since.',
        },
        journals: {
            kind: 'list',
            value: 'GLOB',
            description: 'Where per-step journals are (default .sdd/runtime/journal/*/000000.jsonl).',
        },
        runs: {
            kind: 'list',
            value: 'GLOB',
            description: 'Where run journals are (default .sdd/runs/*/journal.jsonl).',
        },
        receipts: {
            kind: 'list',
            value: 'GLOB',
            description: 'Where receipts are (default **/*.receipt.tar and .tar.gz, .tgz).',
        },
        'public-key': PUBLIC_KEY_OPTION,
        'expected-heads': {
            kind: 'value',
            value: 'FILE',
            description: 'A JSON object {"agent_id": "head"}: each named agent\'s journal must end at that head.',
        },
        'warn-flagged': { kind: 'flag', description: 'Report flagged mutations as warnings instead of failing.' },
        'allow-empty': {
            kind: 'flag',
            description: 'Accept a check that matches nothing (no journal, run journal or receipt; a glob matching no file).',
        },
        markdown: { kind: 'flag', description: "Print the Action's job summary (Markdown) instead of lines." },
    },
    examples: [
        { run: 'stepchain check --base origin/main', what: 'what the PR check will say, before pushing' },
        { run: 'stepchain check --public-key keys/receipts.pub --json', what: 'signed receipts, as JSON' },
    ],
    exitCodes: {
        0: 'everything found holds',
        1: 'a fault (each printed), or nothing matched (without --allow-empty)',
        2: 'usage or input error (a bad --base ref)',
    },
    async run(args, io) {
        expectPositionals(args, [], 'check');
        const root = rootOf(args, io);
        const baseRef = args.values.get('base');
        const base = baseRef === undefined ? undefined : await resolveCommit(root, baseRef);
        const headsFile = args.values.get('expected-heads');
        const list = (name) => args.lists.get(name);
        const journals = list('journals');
        const runs = list('runs');
        const receipts = list('receipts');
        const report = await checkWorkspace({
            root,
            ...(base === undefined ? {} : { base }),
            ...(journals === undefined ? {} : { journals }),
            ...(runs === undefined ? {} : { runs }),
            ...(receipts === undefined ? {} : { receipts }),
            publicKeys: (list('public-key') ?? []).map((f) => readPublicKeyFile(external_node_path_default().resolve(io.cwd, f))),
            ...(headsFile === undefined
                ? {}
                : {
                    expectedHeads: parseExpectedHeads(readInputFile(headsFile, io, 'expected heads'), headsFile),
                    expectedHeadsPath: external_node_path_default().relative(root, external_node_path_default().resolve(io.cwd, headsFile)).split((external_node_path_default()).sep).join('/'),
                }),
            failOnFlaggedMutations: !args.flags.has('warn-flagged'),
        });
        // A check that found nothing does not say OK (a mistyped glob, a wrong --root).
        const empty = args.flags.has('allow-empty')
            ? []
            : emptyFindings(report, {
                ...(journals === undefined ? {} : { journal: journals }),
                ...(runs === undefined ? {} : { run: runs }),
                ...(receipts === undefined ? {} : { receipt: receipts }),
            });
        const ok = report.ok && empty.length === 0;
        if (args.flags.has('json')) {
            io.json({ ...checkReportJson(report), ok, nothing_matched: empty });
        }
        else if (args.flags.has('markdown')) {
            io.out(renderCheckMarkdown(report, {
                forks: await forkTree(root, undefined, io.env),
                notes: empty.map((e) => `${e} (stepchain check --allow-empty accepts that)`),
            }));
        }
        else {
            for (const i of report.items) {
                io.out(`${i.ok ? 'OK  ' : 'FAIL'} ${i.kind} ${i.path}: ${i.steps} step${i.steps === 1 ? '' : 's'}${i.head ? `, head ${i.head}` : ''} (${i.status}${i.appendOnly && i.appendOnly !== i.status ? `, ${i.appendOnly}` : ''})`);
            }
            io.out(`${ok ? 'OK' : 'FAIL'}: ${report.verified} verified, ${report.failed} failed${base === undefined ? '' : `, append-only since ${baseRef} (${base.slice(0, 12)})`}`);
        }
        for (const f of report.faults)
            io.err(`${f.severity === 'error' ? '' : 'warning: '}${f.line === null ? f.path : `${f.path}:${f.line}`}: ${f.message}`);
        for (const e of empty)
            io.err(`${e} (--allow-empty accepts that)`);
        return ok ? 0 : 1;
    },
};

;// CONCATENATED MODULE: ./src/claude/transcript.ts



/**
 * Reading Claude Code's own session files (`<config>/projects/<dir>/<session_id>.jsonl`,
 * docs/claude.md "Transcripts"): one JSON object per line, conversation entries
 * chained by `uuid`/`parentUuid`, each carrying the `sessionId`. The format is
 * Claude Code's, not ours, and undocumented: everything here is checked on the
 * real binary in the test suite, and anything unexpected is a refusal, not a guess.
 */
/** Longest directory name Claude Code derives from a path without adding a hash of its own. */
const MAX_PROJECT_DIR_NAME = 200;
/**
 * The directory name under `<config>/projects/` Claude Code uses for a working
 * directory: every character other than an ASCII letter or digit becomes `-`
 * (`/tmp/a_b.c` -> `-tmp-a-b-c`). Undefined where stepchain cannot be sure of
 * the name: a path with non-ASCII or control characters, or a name longer than
 * 200 characters (Claude Code then shortens it and appends a hash).
 */
function projectDirName(dir) {
    if (!/^[\x20-\x7e]*$/.test(dir))
        return undefined;
    const name = dir.replace(/[^A-Za-z0-9]/g, '-');
    return name.length <= MAX_PROJECT_DIR_NAME ? name : undefined;
}
/** How far back from the end the hook looks for the assistant entry of a tool call. */
const TAIL_WINDOW = 4 << 20;
const CHUNK = 64 << 10;
function parseLine(line) {
    try {
        const v = JSON.parse(line);
        return typeof v === 'object' && v !== null && !Array.isArray(v) ? v : undefined;
    }
    catch {
        return undefined;
    }
}
/** Whether an entry is an assistant message with a `tool_use` block of this id. */
function assistantModelFor(entry, toolUseId) {
    if (entry.type !== 'assistant')
        return undefined;
    const msg = entry.message;
    if (typeof msg !== 'object' || msg === null || !Array.isArray(msg.content))
        return undefined;
    const has = msg.content.some((b) => typeof b === 'object' &&
        b !== null &&
        b.type === 'tool_use' &&
        b.id === toolUseId);
    return has && typeof msg.model === 'string' ? msg.model : undefined;
}
/**
 * The model that asked for a tool call, from the transcript's last few MiB
 * (read backwards, so the cost does not grow with the session). Undefined when
 * it is not there: Claude Code writes its transcript asynchronously, so the
 * entry may not be written yet when the hook runs, and a model is never guessed.
 */
function modelOfToolUse(transcriptPath, toolUseId, window = TAIL_WINDOW) {
    let fd;
    try {
        fd = (0,external_node_fs_namespaceObject.openSync)(transcriptPath, 'r');
    }
    catch {
        return undefined;
    }
    try {
        const st = (0,external_node_fs_namespaceObject.fstatSync)(fd);
        if (!st.isFile())
            return undefined;
        const needle = Buffer.from(JSON.stringify(toolUseId));
        const stop = Math.max(0, st.size - window);
        let end = st.size;
        let carry = Buffer.alloc(0); // a line whose beginning is further back
        while (end > stop) {
            const start = Math.max(stop, end - CHUNK);
            const buf = Buffer.concat([readRange(fd, start, end - start), carry]);
            // The first piece may be the tail of a line that starts before `start`: it waits for the rest.
            const first = start > 0 ? buf.indexOf(0x0a) : -1;
            if (start > 0 && first < 0) {
                carry = buf;
                end = start;
                continue;
            }
            carry = start > 0 ? buf.subarray(0, first) : Buffer.alloc(0);
            const whole = buf.subarray(first + 1);
            // Most chunks do not mention the call at all: only those that do are split into lines.
            for (let at = whole.lastIndexOf(needle); at >= 0;) {
                const lineStart = whole.lastIndexOf(0x0a, at) + 1;
                let lineEnd = whole.indexOf(0x0a, at);
                if (lineEnd < 0)
                    lineEnd = whole.length;
                const entry = parseLine(whole.subarray(lineStart, lineEnd).toString('utf8'));
                const model = entry === undefined ? undefined : assistantModelFor(entry, toolUseId);
                if (model !== undefined)
                    return model;
                at = lineStart === 0 ? -1 : whole.lastIndexOf(needle, lineStart - 1);
            }
            end = start;
        }
        return undefined;
    }
    catch {
        return undefined;
    }
    finally {
        (0,external_node_fs_namespaceObject.closeSync)(fd);
    }
}
/** The projects directory and session of a transcript path laid out as Claude Code lays it out. */
function transcriptLayout(transcriptPath, sessionId) {
    if (external_node_path_default().basename(transcriptPath) !== `${sessionId}.jsonl`)
        return undefined;
    const dir = external_node_path_default().dirname(transcriptPath);
    const projectsDir = external_node_path_default().dirname(dir);
    if (external_node_path_default().basename(projectsDir) !== 'projects')
        return undefined;
    return { projectsDir, dirName: external_node_path_default().basename(dir) };
}

;// CONCATENATED MODULE: ./src/demo/claude-session.ts
/**
 * A Claude Code session, as Claude Code 2.1.328 reported it to its hooks and
 * wrote it to its transcript (recorded against a scripted model; the field
 * names, event order and transcript layout are the binary's, checked by the
 * test suite against the real binary). Paths and times are filled in for the
 * demo's temporary project. The agent runs the failing test, fixes `mean()`,
 * runs the test again, and its context is compacted.
 */
const DEMO_SESSION_ID = '7d3a9c1e-5b2f-4c8d-9e0a-1f2b3c4d5e6f';
const MODEL = 'claude-sonnet-4-5-20250929';
const PROMPT = 'tests/test_stats.py fails. Fix it.';
/** The project files the session starts from (a new module with a bug, and its test). */
const STATS_BUGGY = 'def mean(xs):\n    return sum(xs) / (len(xs) - 1)\n';
const STATS_FIXED = 'def mean(xs):\n    return sum(xs) / len(xs)\n';
const DEMO_SESSION_FILES = {
    'src/stats.py': STATS_BUGGY,
    'tests/test_stats.py': 'from src.stats import mean\n\n\ndef test_mean():\n    assert mean([1, 2, 3]) == 2.0\n',
};
const OLD = 'sum(xs) / (len(xs) - 1)';
const NEW = 'sum(xs) / len(xs)';
const PROMPT_ID = '2c9e4b1a-8f3d-4e6a-b1c7-0d5f9a8e7b6c';
const FAIL = 'Exit code 1\nF                                                                        [100%]\nFAILED tests/test_stats.py::test_mean - assert 3.0 == 2.0\n1 failed in 0.02s';
function demoHooks(cwd, transcriptPath) {
    const base = { session_id: DEMO_SESSION_ID, transcript_path: transcriptPath, cwd };
    const turn = { ...base, prompt_id: PROMPT_ID, permission_mode: 'acceptEdits' };
    const calc = `${cwd}/src/stats.py`;
    return [
        { label: 'SessionStart (startup)', payload: { ...base, hook_event_name: 'SessionStart', source: 'startup' } },
        {
            label: 'UserPromptSubmit (the prompt)',
            payload: { ...turn, hook_event_name: 'UserPromptSubmit', prompt: PROMPT },
        },
        {
            label: 'PostToolUseFailure Bash "pytest -q" (exit 1)',
            payload: {
                ...turn,
                hook_event_name: 'PostToolUseFailure',
                tool_name: 'Bash',
                tool_input: { command: 'pytest -q', description: 'Run the test suite' },
                tool_use_id: 'toolu_01TestRun',
                error: FAIL,
                is_interrupt: false,
                duration_ms: 412,
            },
        },
        {
            label: 'PostToolUse Edit src/stats.py',
            writes: { 'src/stats.py': STATS_FIXED },
            payload: {
                ...turn,
                hook_event_name: 'PostToolUse',
                tool_name: 'Edit',
                tool_input: {
                    file_path: calc,
                    old_string: OLD,
                    new_string: NEW,
                    replace_all: false,
                },
                tool_response: {
                    filePath: calc,
                    oldString: OLD,
                    newString: NEW,
                    originalFile: STATS_BUGGY,
                    structuredPatch: [
                        {
                            oldStart: 1,
                            oldLines: 2,
                            newStart: 1,
                            newLines: 2,
                            lines: [' def mean(xs):', '-    return sum(xs) / (len(xs) - 1)', '+    return sum(xs) / len(xs)'],
                        },
                    ],
                    userModified: false,
                    replaceAll: false,
                },
                tool_use_id: 'toolu_02FixAdd',
                duration_ms: 6,
            },
        },
        {
            label: 'PostToolUse Bash "pytest -q"',
            payload: {
                ...turn,
                hook_event_name: 'PostToolUse',
                tool_name: 'Bash',
                tool_input: { command: 'pytest -q', description: 'Run the test suite again' },
                tool_response: {
                    stdout: '.                                                                        [100%]\n1 passed in 0.01s',
                    stderr: '',
                    interrupted: false,
                    isImage: false,
                    noOutputExpected: false,
                },
                tool_use_id: 'toolu_03TestAgain',
                duration_ms: 398,
            },
        },
        {
            label: 'PreCompact (auto)',
            payload: { ...turn, hook_event_name: 'PreCompact', trigger: 'auto', custom_instructions: null },
        },
        {
            label: 'SessionStart (compact)',
            payload: { ...base, prompt_id: PROMPT_ID, hook_event_name: 'SessionStart', source: 'compact', model: MODEL },
        },
        {
            label: 'Stop',
            payload: {
                ...turn,
                hook_event_name: 'Stop',
                stop_hook_active: false,
                last_assistant_message: 'mean() divided by n - 1; it divides by n now and the test passes.',
            },
        },
        { label: 'SessionEnd', payload: { ...base, prompt_id: PROMPT_ID, hook_event_name: 'SessionEnd', reason: 'other' } },
    ];
}
/** The session's transcript (`<config>/projects/<dir>/<session_id>.jsonl`), one JSON object per line. */
function demoTranscript(cwd) {
    const t0 = Date.parse('2026-12-02T09:00:00.000Z');
    let k = 0;
    const ts = () => new Date(t0 + 250 * k++).toISOString();
    const meta = {
        userType: 'external',
        entrypoint: 'cli',
        cwd,
        sessionId: DEMO_SESSION_ID,
        version: '2.1.328',
        gitBranch: 'main',
    };
    const uuid = (n) => `5f0c${String(n).padStart(4, '0')}-1d2e-4f3a-8b4c-5d6e7f8a9b0c`;
    const assistant = (n, parent, id, content, stop) => ({
        parentUuid: uuid(parent),
        isSidechain: false,
        message: {
            id,
            type: 'message',
            role: 'assistant',
            model: MODEL,
            content,
            stop_reason: stop,
            stop_sequence: null,
            usage: { input_tokens: 1200, output_tokens: 40 },
        },
        type: 'assistant',
        uuid: uuid(n),
        timestamp: ts(),
        ...meta,
    });
    const result = (n, parent, toolUseId, content, isError, toolUseResult) => ({
        parentUuid: uuid(parent),
        isSidechain: false,
        promptId: PROMPT_ID,
        type: 'user',
        message: { role: 'user', content: [{ tool_use_id: toolUseId, type: 'tool_result', content, is_error: isError }] },
        uuid: uuid(n),
        timestamp: ts(),
        toolUseResult,
        sourceToolAssistantUUID: uuid(parent),
        ...meta,
    });
    const calc = `${cwd}/src/stats.py`;
    const lines = [
        { type: 'queue-operation', operation: 'enqueue', timestamp: ts(), sessionId: DEMO_SESSION_ID, content: PROMPT },
        { type: 'queue-operation', operation: 'dequeue', timestamp: ts(), sessionId: DEMO_SESSION_ID },
        {
            parentUuid: null,
            isSidechain: false,
            promptId: PROMPT_ID,
            type: 'user',
            message: { role: 'user', content: PROMPT },
            uuid: uuid(1),
            timestamp: ts(),
            permissionMode: 'acceptEdits',
            ...meta,
        },
        assistant(2, 1, 'msg_01A', [
            {
                type: 'tool_use',
                id: 'toolu_01TestRun',
                name: 'Bash',
                input: { command: 'pytest -q', description: 'Run the test suite' },
            },
        ], 'tool_use'),
        result(3, 2, 'toolu_01TestRun', FAIL, true, `Error: ${FAIL}`),
        { type: 'last-prompt', lastPrompt: PROMPT, leafUuid: uuid(3), sessionId: DEMO_SESSION_ID },
        assistant(4, 3, 'msg_02B', [
            {
                type: 'tool_use',
                id: 'toolu_02FixAdd',
                name: 'Edit',
                input: { replace_all: false, file_path: calc, old_string: OLD, new_string: NEW },
            },
        ], 'tool_use'),
        result(5, 4, 'toolu_02FixAdd', `The file ${calc} has been updated successfully.`, false, {
            filePath: calc,
            oldString: OLD,
            newString: NEW,
        }),
        assistant(6, 5, 'msg_03C', [
            {
                type: 'tool_use',
                id: 'toolu_03TestAgain',
                name: 'Bash',
                input: { command: 'pytest -q', description: 'Run the test suite again' },
            },
        ], 'tool_use'),
        result(7, 6, 'toolu_03TestAgain', '.                                                                        [100%]\n1 passed in 0.01s', false, { stdout: '1 passed in 0.01s', stderr: '', interrupted: false }),
        assistant(8, 7, 'msg_04D', [{ type: 'text', text: 'mean() divided by n - 1; it divides by n now and the test passes.' }], 'end_turn'),
        {
            parentUuid: null,
            logicalParentUuid: uuid(8),
            isSidechain: false,
            type: 'system',
            subtype: 'compact_boundary',
            content: 'Conversation compacted',
            isMeta: false,
            timestamp: ts(),
            uuid: uuid(9),
            level: 'info',
            compactMetadata: { trigger: 'auto', preTokens: 167353, postTokens: 4123 },
            ...meta,
        },
        {
            parentUuid: uuid(9),
            isSidechain: false,
            promptId: PROMPT_ID,
            type: 'user',
            message: {
                role: 'user',
                content: 'This session is being continued from a previous conversation that ran out of context. The summary below covers the earlier portion of the conversation.\n\nThe test of mean() failed: it divided by n - 1. It was fixed and the test passes.',
            },
            isCompactSummary: true,
            uuid: uuid(10),
            timestamp: ts(),
            ...meta,
        },
    ];
    return lines.map((l) => JSON.stringify(l)).join('\n') + '\n';
}

;// CONCATENATED MODULE: ./src/demo/claude.ts




/**
 * Claude Code, recorded with no code from the user (docs/claude.md): install
 * the hooks, a session's hook events through `stepchain hook claude`, verify
 * and replay what they recorded, then fork at the failing test run and get the
 * command that resumes the conversation there.
 *
 * The demo feeds a recorded payload sequence (src/demo/claude-session.ts)
 * instead of running the claude binary: it must run without the network, from
 * an install without devDependencies, in well under a second. The real binary
 * runs in the test suite (test/claude.*.test.ts).
 */
async function demoClaude(ctx) {
    const agent = `claude-${DEMO_SESSION_ID}`;
    // Claude Code's own directory for this demo (CLAUDE_CONFIG_DIR), kept inside the temporary project.
    const config = external_node_path_default().join(ctx.root, '.sdd', 'claude-config');
    const dirName = projectDirName(ctx.root);
    if (dirName === undefined) {
        ctx.section('Claude Code hooks');
        ctx.say(`(skipped: Claude Code's session directory name for ${ctx.root} cannot be derived safely)`);
        return;
    }
    const transcript = external_node_path_default().join(config, 'projects', dirName, `${DEMO_SESSION_ID}.jsonl`);
    ctx.section('Claude Code: one command installs the hooks');
    const init = await ctx.run(['init', 'claude'], { quiet: true });
    if (init.code !== 0)
        throw new Error(`demo: init claude failed: ${init.stderr}`);
    const out = init.stdout.trimEnd().split('\n');
    const diff = out.filter((l) => /^(---|\+\+\+|@@|[-+ ])/.test(l));
    ctx.say('$ stepchain init claude');
    for (const l of diff.slice(0, 16))
        ctx.say(`  ${l}`);
    ctx.say(`  ... (${diff.length - 16} more lines of the diff)`);
    for (const l of out.slice(diff.length))
        ctx.say(`  ${l}`);
    const again = await ctx.run(['init', 'claude']);
    if (again.code !== 0)
        throw new Error(`demo: init claude (again) failed: ${again.stderr}`);
    ctx.section('A Claude Code session, recorded by its hooks');
    ctx.say('Claude Code pipes each hook event as JSON into `stepchain hook claude`. These are the events of a');
    ctx.say('session (Claude Code 2.1.328) that runs a failing test, fixes mean(), runs it again, and is compacted:');
    for (const [f, content] of Object.entries(DEMO_SESSION_FILES)) {
        (0,external_node_fs_namespaceObject.mkdirSync)(external_node_path_default().dirname(external_node_path_default().join(ctx.root, f)), { recursive: true });
        (0,external_node_fs_namespaceObject.writeFileSync)(external_node_path_default().join(ctx.root, f), content);
    }
    (0,external_node_fs_namespaceObject.mkdirSync)(external_node_path_default().dirname(transcript), { recursive: true });
    (0,external_node_fs_namespaceObject.writeFileSync)(transcript, demoTranscript(ctx.root));
    for (const h of demoHooks(ctx.root, transcript)) {
        for (const [f, content] of Object.entries(h.writes ?? {}))
            (0,external_node_fs_namespaceObject.writeFileSync)(external_node_path_default().join(ctx.root, f), content);
        const r = await ctx.run(['hook', 'claude'], { quiet: true, stdin: Buffer.from(JSON.stringify(h.payload)) });
        if (r.code !== 0)
            throw new Error(`demo: hook claude (${h.label}) failed: ${r.stderr}`);
        ctx.say(`  ${h.label.padEnd(46)} exit ${r.code}`);
    }
    ctx.say(`Three tool calls, three steps of the journal ${agent}:`);
    await ctx.run(['verify', agent]);
    await ctx.run(['replay', agent]);
    ctx.say('Its run journal: the claude adapter observed from the start, the compaction pinned as a mutation:');
    await ctx.run(['run', 'verify', agent]);
    ctx.section('Fork at the failing test run, and resume the conversation there');
    const fork = await ctx.run(['fork', agent, '--from-step', '0', '--resume'], { quiet: true });
    if (fork.code !== 0)
        throw new Error(`demo: fork --resume failed: ${fork.stderr}`);
    ctx.say(`$ stepchain fork ${agent} --from-step 0 --resume`);
    for (const l of fork.stdout.trimEnd().split('\n'))
        ctx.say(`  ${l}`);
    const worktree = /^ {2}worktree {3}(.+)$/m.exec(fork.stdout)?.[1];
    const copy = /^ {2}transcript (.+) \(lines/m.exec(fork.stdout)?.[1];
    if (worktree === undefined || copy === undefined)
        throw new Error('demo: fork --resume printed no worktree');
    ctx.say('src/stats.py in the fork (the files of step 0, before the fix):');
    ctx.say(`  ${(0,external_node_fs_namespaceObject.readFileSync)(external_node_path_default().join(worktree, 'src', 'stats.py'), 'utf8')
        .trimEnd()
        .split('\n')
        .join('\n  ')}`);
    const last = JSON.parse((0,external_node_fs_namespaceObject.readFileSync)(copy, 'utf8').trimEnd().split('\n').at(-1));
    const res = last.message.content[0];
    ctx.say(`The copied conversation ends with the result of ${res.tool_use_id}:`);
    ctx.say(`  ${res.content.split('\n').join('\n  ')}`);
    ctx.say("Run the command above (with Claude Code installed) and the fork's next step is recorded as step 1 of");
    ctx.say('the fork, on top of the verified prefix.');
    ctx.epilogue.push(`stepchain replay ${agent}          # the recorded Claude Code session`, `stepchain run verify ${agent}      # its run journal, with the compaction`);
}

;// CONCATENATED MODULE: ./src/demo/context.ts


function makeContext(root, env, write) {
    const ctx = {
        root,
        env,
        epilogue: [],
        section: (title) => write(`\n== ${title} ==\n`),
        say: (line) => write(`${line}\n`),
        async run(argv, options = {}) {
            const cwd = options.cwd ?? root;
            let stdout = '';
            let stderr = '';
            const io = {
                out: (l) => void (stdout += `${l}\n`),
                err: (l) => void (stderr += `${l}\n`),
                json: (d) => void (stdout += `${jsonDocument(d)}\n`),
                readStdin: () => options.stdin ?? Buffer.alloc(0),
                isTTY: false,
                env,
                cwd,
            };
            const code = await runCli(argv, io);
            if (!options.quiet) {
                write(`$ stepchain ${argv.map((a) => (/^[\w./:=@-]+$/.test(a) ? a : `'${a.replace(/'/g, "'\\''")}'`)).join(' ')}\n`);
                const indent = (s) => s
                    .replace(/\n$/, '')
                    .split('\n')
                    .map((l) => `  ${l}`)
                    .join('\n');
                if (stdout)
                    write(`${indent(stdout)}\n`);
                if (stderr)
                    write(`${indent(stderr)}\n`);
                write(`  (exit ${code})\n`);
            }
            return { code, stdout, stderr };
        },
    };
    return ctx;
}

;// CONCATENATED MODULE: ./src/demo/sample.ts
/** The embedded sample: a short agent run that fixes a bug in a tiny project. */
const SAMPLE_AGENT = 'agent-demo';
const SAMPLE_FILES = {
    'README.md': '# calc\n\nA tiny calculator the demo agent works on.\n',
    'src/calc.py': 'def add(a, b):\n    return a - b  # bug: should add\n',
    'tests/test_calc.py': 'from src.calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n',
};
const SAMPLE_STEPS = [
    {
        model: 'claude-3-7-sonnet-20250219',
        prompt: 'The test suite fails. Find out why.',
        tool_call: { name: 'run', args: { cmd: 'pytest -q' } },
        tool_result: { exit_code: 1, stdout: 'FAILED tests/test_calc.py::test_add - assert -1 == 5' },
    },
    {
        model: 'claude-3-7-sonnet-20250219',
        prompt: 'Read the implementation of add().',
        tool_call: { name: 'read_file', args: { path: 'src/calc.py' } },
        tool_result: { content: 'def add(a, b):\n    return a - b  # bug: should add\n' },
    },
    {
        model: 'claude-3-7-sonnet-20250219',
        prompt: 'Fix the bug in add().',
        tool_call: { name: 'edit_file', args: { path: 'src/calc.py', old: 'a - b  # bug: should add', new: 'a + b' } },
        tool_result: { ok: true },
        writes: { 'src/calc.py': 'def add(a, b):\n    return a + b\n' },
    },
    {
        model: 'claude-3-7-sonnet-20250219',
        prompt: 'Run the tests again.',
        tool_call: { name: 'run', args: { cmd: 'pytest -q' } },
        tool_result: { exit_code: 0, stdout: '1 passed in 0.01s' },
    },
    {
        model: 'claude-3-7-sonnet-20250219',
        prompt: 'Summarise the change for the pull request. Résumé ✓',
        tool_call: null,
        tool_result: { summary: 'add() subtracted instead of adding; fixed and the test passes.' },
    },
];

;// CONCATENATED MODULE: ./src/demo/fork.ts



/**
 * Forks the sample run at step 1, before the agent fixed the bug at step 2: the
 * fork's worktree has the files of step 1 (restored from the per-step snapshot),
 * its journal is the parent's verified prefix, and it keeps recording on top.
 */
async function demoFork(ctx) {
    ctx.section('Fork the run at step 1 into a sibling git worktree');
    ctx.say('Every append also stored the worktree as a commit under refs/stepchain/snapshots/<agent>/<seq>,');
    ctx.say('without touching the index, HEAD or the files. Fork at step 1, before the fix of step 2:');
    const r = await ctx.run(['fork', SAMPLE_AGENT, '--from-step', '1', '--label', 'try another fix', '--json']);
    if (r.code !== 0)
        throw new Error(`demo: fork failed: ${r.stderr}`);
    const fork = JSON.parse(r.stdout);
    const calc = (dir) => (0,external_node_fs_namespaceObject.readFileSync)(external_node_path_default().join(dir, 'src', 'calc.py'), 'utf8').trimEnd();
    ctx.say('src/calc.py in the fork (the files of step 1):');
    ctx.say(`  ${calc(fork.fork_worktree).split('\n').join('\n  ')}`);
    ctx.say('src/calc.py in the main tree (fixed at step 2):');
    ctx.say(`  ${calc(ctx.root).split('\n').join('\n  ')}`);
    ctx.section("The fork keeps recording: its journal continues the parent's prefix [0..1]");
    (0,external_node_fs_namespaceObject.writeFileSync)(external_node_path_default().join(fork.fork_worktree, 'src', 'calc.py'), 'def add(a, b):\n    return sum((a, b))\n');
    const a = await ctx.run([
        'append',
        fork.fork_session_id,
        '--root',
        fork.fork_worktree,
        '--model',
        'claude-3-7-sonnet-20250219',
        '--prompt',
        'Try a different fix: use sum().',
        '--tool-call',
        '{"name":"edit_file","args":{"path":"src/calc.py"}}',
        '--tool-result',
        '{"ok":true}',
    ], { quiet: true });
    if (a.code !== 0)
        throw new Error(`demo: append in the fork failed: ${a.stderr}`);
    ctx.say(`(${a.stdout.split('\n')[0]})`);
    await ctx.run(['verify', fork.fork_session_id, '--root', fork.fork_worktree]);
    ctx.section('Every fork of the repository, as a tree');
    await ctx.run(['forks']);
    ctx.epilogue.push(`stepchain forks                                   # the fork tree`, `cat ${external_node_path_default().relative(ctx.root, fork.fork_worktree)}/src/calc.py        # the fork's own files`, `stepchain fork rm ${fork.fork_session_id} --force   # remove the fork`);
}

;// CONCATENATED MODULE: ./src/demo/journal.ts




/** Records the sample run step by step, verifies it, then tampers with a copy. */
async function demoJournal(ctx) {
    ctx.section('Record a run: one hash-chained journal row per step');
    for (const [i, step] of SAMPLE_STEPS.entries()) {
        for (const [file, content] of Object.entries(step.writes ?? {}))
            (0,external_node_fs_namespaceObject.writeFileSync)(external_node_path_default().join(ctx.root, file), content);
        const input = external_node_path_default().join(ctx.root, '.sdd', 'demo-inputs', `step-${i}.txt`);
        (0,external_node_fs_namespaceObject.mkdirSync)(external_node_path_default().dirname(input), { recursive: true });
        (0,external_node_fs_namespaceObject.writeFileSync)(input, `user turn ${i}: ${step.prompt}\n`);
        const argv = ['append', SAMPLE_AGENT, '--input', input, '--model', step.model, '--prompt', step.prompt];
        if (step.tool_call !== null)
            argv.push('--tool-call', JSON.stringify(step.tool_call));
        argv.push('--tool-result', JSON.stringify(step.tool_result));
        const r = await ctx.run(argv, { quiet: i > 0 });
        if (r.code !== 0)
            throw new Error(`demo: append failed: ${r.stderr}`);
        if (i > 0)
            ctx.say(`  step ${i}: ${step.prompt}`);
    }
    ctx.section('Verify the chain from genesis');
    await ctx.run(['verify', SAMPLE_AGENT]);
    ctx.section('Tamper with a copy: change one tool result, keep the stored hash');
    const original = journalFile(ctx.root, SAMPLE_AGENT);
    const tamperedDir = external_node_path_default().join(ctx.root, '.sdd', 'tampered-copy');
    (0,external_node_fs_namespaceObject.mkdirSync)(tamperedDir, { recursive: true });
    const tampered = external_node_path_default().join(tamperedDir, '000000.jsonl');
    (0,external_node_fs_namespaceObject.copyFileSync)(original, tampered);
    const lines = (0,external_node_fs_namespaceObject.readFileSync)(tampered, 'utf8').split('\n');
    lines[3] = lines[3].replace('1 passed in 0.01s', '9 passed in 0.01s');
    (0,external_node_fs_namespaceObject.writeFileSync)(tampered, lines.join('\n'));
    ctx.say('The copy claims 9 tests passed at step 3. The operator sees:');
    await ctx.run(['verify', tampered]);
    ctx.say('and appending to a tampered journal is refused (fail-closed):');
    await ctx.run(['append', tamperedDir, '--prompt', 'continue']);
}

;// CONCATENATED MODULE: ./src/demo/receipts.ts




/** Flips one byte of the journal member inside a copy of a receipt (re-packing it as a valid tar). */
function tamperedCopy(receipt, out) {
    const entries = readTar((0,external_node_fs_namespaceObject.readFileSync)(receipt));
    const members = entries.map((e) => ({ name: e.name, data: Buffer.from(e.data) }));
    const journal = members.find((m) => m.name === 'journal/000000.jsonl');
    const at = journal.data.indexOf('"prompt":"') + '"prompt":"'.length;
    journal.data[at] = journal.data[at] ^ 0x01;
    (0,external_node_fs_namespaceObject.writeFileSync)(out, writeTar(members, Math.floor(Date.now() / 1000)));
}
/** Receipts: keygen, signed export, offline verify, redacted publish, and a tampered receipt failing. */
async function demoReceipts(ctx) {
    // Keys and receipts live in an untracked scratch directory of the demo project.
    const dir = external_node_path_default().join(ctx.root, '.sdd', 'demo-receipts');
    (0,external_node_fs_namespaceObject.mkdirSync)(dir, { recursive: true });
    const rel = (f) => external_node_path_default().relative(ctx.root, external_node_path_default().join(dir, f));
    ctx.section('Receipts: a signing key');
    await ctx.run(['keygen', '-o', rel('signing.pem'), '--public', rel('verify.pem')]);
    ctx.section('Export a signed, portable receipt (the journal is verified first)');
    await ctx.run(['export', SAMPLE_AGENT, '-o', rel('run.receipt.tar'), '--sign-key', rel('signing.pem')]);
    ctx.section('Verify it offline, anywhere: nothing is extracted to disk');
    await ctx.run(['receipt', 'verify', rel('run.receipt.tar'), '--public-key', rel('verify.pem'), '--require-blobs']);
    ctx.section('Publish with privacy redaction (opt-in; prompts and tool results become <<redacted>>)');
    await ctx.run(['publish', SAMPLE_AGENT, '-o', rel('published.receipt.tar')]);
    await ctx.run([
        'publish',
        SAMPLE_AGENT,
        '-o',
        rel('published.receipt.tar'),
        '--opt-in',
        '--sign-key',
        rel('signing.pem'),
    ]);
    await ctx.run(['receipt', 'verify', rel('published.receipt.tar'), '--public-key', rel('verify.pem')]);
    ctx.section('A tampered receipt: one byte of one prompt flipped in a copy');
    tamperedCopy(external_node_path_default().join(dir, 'run.receipt.tar'), external_node_path_default().join(dir, 'tampered.receipt.tar'));
    ctx.say('The copy\'s first prompt now starts "Uhe test suite..."; the manifest and its signature are untouched,');
    ctx.say('but the chain no longer recomputes to the signed head:');
    await ctx.run(['receipt', 'verify', rel('tampered.receipt.tar'), '--public-key', rel('verify.pem')]);
    ctx.epilogue.push(`stepchain receipt verify ${rel('run.receipt.tar')} --public-key ${rel('verify.pem')} --json   # a signed receipt`);
}

;// CONCATENATED MODULE: ./src/demo/report.ts



/**
 * The reviewer's view: one self-contained HTML file per run that re-verifies the
 * chain in the browser. The tampered copy made by the journal section gets one too.
 */
async function demoReport(ctx) {
    ctx.section('An offline HTML report for the pull request: it re-verifies the chain in the browser');
    const dir = external_node_path_default().join(ctx.root, '.sdd', 'report');
    (0,external_node_fs_namespaceObject.mkdirSync)(dir, { recursive: true });
    const rel = (f) => external_node_path_default().relative(ctx.root, external_node_path_default().join(dir, f));
    const r = await ctx.run(['report', SAMPLE_AGENT, '-o', rel(`${SAMPLE_AGENT}.html`)]);
    if (r.code !== 0)
        throw new Error(`demo: report failed: ${r.stderr}`);
    ctx.say("No network, no external script: the journal's bytes, the bundled blobs and the verifier are all in the file.");
    const tampered = external_node_path_default().join(ctx.root, '.sdd', 'tampered-copy');
    if ((0,external_node_fs_namespaceObject.existsSync)(external_node_path_default().join(tampered, '000000.jsonl'))) {
        ctx.say('The tampered copy gets a report too: it is written (that is the point), says TAMPERED with the line, and exits 1:');
        await ctx.run(['report', external_node_path_default().relative(ctx.root, tampered), '-o', rel('tampered.html')]);
    }
    ctx.epilogue.push(`open ${rel(`${SAMPLE_AGENT}.html`)}    # the HTML report (xdg-open on Linux): verifies in the browser, ←/→ to walk`, `open ${rel('tampered.html')}           # the tampered copy's report: red, first fault at line 4`);
}

;// CONCATENATED MODULE: ./src/demo/replay.ts




/** The journal of a fork made by an earlier section (the newest), if any. */
function forkJournal(root) {
    const dir = external_node_path_default().join(root, '.sdd', 'worktrees');
    if (!(0,external_node_fs_namespaceObject.existsSync)(dir))
        return undefined;
    for (const id of (0,external_node_fs_namespaceObject.readdirSync)(dir).sort().reverse()) {
        const file = external_node_path_default().join(dir, id, '.sdd', 'runtime', 'journal', id, JOURNAL_FILE);
        if ((0,external_node_fs_namespaceObject.existsSync)(file))
            return { id, file };
    }
    return undefined;
}
/** The operator's replay surface: the run as a table, one step in full, and where two runs part. */
async function demoReplay(ctx) {
    ctx.section('Replay: the run as a table of steps (verified first)');
    await ctx.run(['replay', SAMPLE_AGENT]);
    ctx.section('One step in full: fields, blobs with sizes and previews, what changed since the step before');
    await ctx.run(['show', SAMPLE_AGENT, '2']);
    ctx.section('Where two runs part: the first divergence, field by field');
    const rel = (f) => external_node_path_default().relative(ctx.root, f);
    let other = forkJournal(ctx.root);
    if (other === undefined) {
        // No fork in this demo: a copy of the first three steps that then does something else.
        const id = `${SAMPLE_AGENT}-alt`;
        const lines = (0,external_node_fs_namespaceObject.readFileSync)(journalFile(ctx.root, SAMPLE_AGENT), 'utf8').split('\n').slice(0, 3);
        (0,external_node_fs_namespaceObject.mkdirSync)(journalDir(ctx.root, id), { recursive: true });
        (0,external_node_fs_namespaceObject.writeFileSync)(journalFile(ctx.root, id), `${lines.join('\n')}\n`);
        const r = await ctx.run([
            'append',
            id,
            '--model',
            'claude-3-7-sonnet-20250219',
            '--prompt',
            'Skip the tests.',
            '--tool-result',
            '{"ok":true}',
        ], { quiet: true });
        if (r.code !== 0)
            throw new Error(`demo: append to the copy failed: ${r.stderr}`);
        other = { id, file: journalFile(ctx.root, id) };
    }
    ctx.say(`The sample run against ${other.id} (exit 1: they diverge):`);
    await ctx.run(['diff', SAMPLE_AGENT, rel(external_node_path_default().dirname(other.file))]);
    ctx.say('and a run against itself (exit 0):');
    await ctx.run(['diff', SAMPLE_AGENT, rel(journalFile(ctx.root, SAMPLE_AGENT))]);
    const published = external_node_path_default().join(ctx.root, '.sdd', 'demo-receipts', 'published.receipt.tar');
    if ((0,external_node_fs_namespaceObject.existsSync)(published)) {
        ctx.section('Replay of a published receipt: verified, redacted fields shown as <<redacted>>');
        const key = external_node_path_default().join(external_node_path_default().dirname(published), 'verify.pem');
        await ctx.run(['replay', rel(published), '--limit', '3', ...((0,external_node_fs_namespaceObject.existsSync)(key) ? ['--public-key', rel(key)] : [])]);
    }
    ctx.epilogue.push(`stepchain replay ${SAMPLE_AGENT}                      # walk the run on a terminal: n/p, g/G, seq+Enter, /search, Enter, f, q`, `stepchain show ${SAMPLE_AGENT} 3 --json               # one step, as stored, with its blobs`, `stepchain diff ${SAMPLE_AGENT} ${rel(external_node_path_default().dirname(other.file))} --json   # where two runs part`);
}

;// CONCATENATED MODULE: ./src/demo/runs.ts





/** A short Claude Code `--output-format stream-json` session in which the provider compacts the context. */
const SESSION = 'd3m0-5e55-4a1d-9c0e-000000000001';
const TRANSCRIPT = [
    {
        type: 'system',
        subtype: 'init',
        session_id: SESSION,
        model: 'claude-sonnet-4-5-20250929',
        tools: ['Bash', 'Read', 'Edit'],
    },
    {
        type: 'assistant',
        session_id: SESSION,
        message: {
            role: 'assistant',
            content: [{ type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'pytest -q' } }],
        },
    },
    {
        type: 'user',
        session_id: SESSION,
        message: {
            role: 'user',
            content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'FAILED tests/test_calc.py::test_add' }],
        },
    },
    {
        type: 'system',
        subtype: 'compact_boundary',
        session_id: SESSION,
        compact_metadata: { trigger: 'auto', pre_tokens: 167353 },
    },
    {
        type: 'assistant',
        session_id: SESSION,
        message: { role: 'assistant', content: [{ type: 'text', text: 'add() subtracts; fixing it.' }] },
    },
    { type: 'result', subtype: 'success', session_id: SESSION, num_turns: 2, result: 'Fixed add().' },
];
/**
 * Run journals (docs/format.md §5): a live run whose provider-side compaction is pinned
 * into the chain, a deterministic replay in which a compaction arrives anyway
 * (flagged: verify fails closed), a diff that attributes the divergence, and
 * the HMAC audit trail of everything the demo did.
 */
async function demoRuns(ctx) {
    const inputs = external_node_path_default().join(ctx.root, '.sdd', 'demo-inputs');
    (0,external_node_fs_namespaceObject.mkdirSync)(inputs, { recursive: true });
    const transcript = external_node_path_default().join(inputs, 'claude-stream.jsonl');
    (0,external_node_fs_namespaceObject.writeFileSync)(transcript, TRANSCRIPT.map((e) => JSON.stringify(e)).join('\n') + '\n');
    const rel = external_node_path_default().relative(ctx.root, transcript);
    const must = async (c, argv, quiet = false) => {
        const r = await c.run(argv, { quiet });
        if (r.code !== 0)
            throw new Error(`demo: stepchain ${argv.join(' ')} failed: ${r.stderr}`);
    };
    ctx.section('Run journal: a live run pins a provider-side compaction into its chain');
    await must(ctx, [
        'run',
        'record',
        'live-run',
        '--event',
        'prompt',
        '--data',
        '{"text": "The test suite fails. Fix it."}',
    ]);
    ctx.say('Claude Code compacted the context mid-run; ingesting its stream-json transcript records the');
    ctx.say('adapter as able to observe that, and chains the compaction as a content-addressed entry:');
    await must(ctx, ['run', 'ingest', 'live-run', '--agent', SAMPLE_AGENT, '--claude-stream', rel]);
    await must(ctx, ['run', 'record', 'live-run', '--event', 'response', '--data', '{"text": "Fixed add()."}'], true);
    await ctx.run(['run', 'verify', 'live-run']);
    ctx.section('Deterministic replay: a compaction that arrives anyway is flagged, and verify fails closed');
    const replayEnv = { ...ctx.env, STEPCHAIN_REPLAY_RUN_ID: 'live-run' };
    const replay = makeContext(ctx.root, replayEnv, (s) => ctx.say(s.replace(/\n$/, '')));
    ctx.say('With STEPCHAIN_REPLAY_RUN_ID=live-run (hermetic replay), the provider compacts again:');
    await must(replay, ['run', 'record', 'replay-run', '--event', 'prompt', '--data', '{"text": "The test suite fails. Fix it."}'], true);
    await replay.run(['run', 'ingest', 'replay-run', '--agent', SAMPLE_AGENT, '--claude-stream', rel]);
    await must(replay, ['run', 'record', 'replay-run', '--event', 'response', '--data', '{"text": "Fixed add()."}'], true);
    await replay.run(['run', 'verify', 'replay-run']);
    ctx.section('Diff: where a clean replay parts from the live run, and why');
    ctx.say('A replay in which the provider did not compact (its adapter saw nothing to report):');
    await must(replay, ['run', 'record', 'clean-replay', '--event', 'prompt', '--data', '{"text": "The test suite fails. Fix it."}'], true);
    await must(replay, ['run', 'capability', 'clean-replay', '--adapter', 'claude', '--capability', 'observed'], true);
    await must(replay, ['run', 'record', 'clean-replay', '--event', 'response', '--data', '{"text": "Fixed add()."}'], true);
    await ctx.run(['run', 'verify', 'clean-replay']);
    ctx.say('The divergence is attributed to the compaction, with its kind and journal index (exit 1):');
    await ctx.run(['run', 'diff', 'live-run', 'clean-replay']);
    await ctx.run(['run', 'diff', 'live-run', 'clean-replay', '--json']);
    ctx.epilogue.push(`stepchain run verify live-run --json               # chain, pinned mutations, capabilities`, `stepchain run diff live-run clean-replay          # where and why two runs part`);
    ctx.section('Audit trail: everything this demo did, HMAC-chained outside the journals');
    if (!auditEnabled(ctx.env)) {
        ctx.say('(audit logging is off here: STEPCHAIN_AUDIT=off)');
        return;
    }
    ctx.say(`(key at ${ctx.env.STEPCHAIN_AUDIT_KEY_PATH}, created 0600 on first use)`);
    await ctx.run(['audit', 'verify']);
    await ctx.run(['audit', 'query']);
    await ctx.run(['audit', 'query', '--event-type', 'provider.state_mutation', '--json']);
    ctx.say("An edited copy of the audit log (the first entry's resource id changed) does not verify:");
    const copy = external_node_path_default().join(ctx.root, '.sdd', 'tampered-audit');
    (0,external_node_fs_namespaceObject.cpSync)(external_node_path_default().join(ctx.root, '.sdd', 'audit'), copy, { recursive: true });
    const day = (0,external_node_fs_namespaceObject.readdirSync)(copy)
        .filter((f) => f.endsWith('.jsonl'))
        .sort()[0];
    const f = external_node_path_default().join(copy, day);
    (0,external_node_fs_namespaceObject.writeFileSync)(f, (0,external_node_fs_namespaceObject.readFileSync)(f, 'utf8').replace('"resource_id": "', '"resource_id": "edited-'));
    await ctx.run(['audit', 'verify', '--dir', external_node_path_default().relative(ctx.root, copy)]);
    ctx.epilogue.push(`STEPCHAIN_AUDIT_KEY_PATH=${ctx.env.STEPCHAIN_AUDIT_KEY_PATH} stepchain audit verify`, `STEPCHAIN_AUDIT_KEY_PATH=${ctx.env.STEPCHAIN_AUDIT_KEY_PATH} stepchain audit query --event-type replay.step`);
}

;// CONCATENATED MODULE: ./src/demo/run.ts













/** The demo's sections, in order; each capability adds its own. */
const DEMO_SECTIONS = [
    demoJournal,
    demoReceipts,
    demoFork,
    demoReplay,
    demoClaude,
    demoRuns,
    demoReport,
];
function git(root, args) {
    (0,external_node_child_process_namespaceObject.execFileSync)('git', args, { cwd: root, stdio: 'ignore' });
}
/**
 * `npm start`: records a sample agent run into a temporary project (a git
 * repository), then walks every capability over it. Touches nothing outside
 * the temporary directory.
 */
async function runDemo(write, env) {
    const root = (0,external_node_fs_namespaceObject.mkdtempSync)(external_node_path_default().join((0,external_node_os_namespaceObject.tmpdir)(), 'stepchain-demo-'));
    for (const [file, content] of Object.entries(SAMPLE_FILES)) {
        (0,external_node_fs_namespaceObject.mkdirSync)(external_node_path_default().dirname(external_node_path_default().join(root, file)), { recursive: true });
        (0,external_node_fs_namespaceObject.writeFileSync)(external_node_path_default().join(root, file), content);
    }
    (0,external_node_fs_namespaceObject.writeFileSync)(external_node_path_default().join(root, '.gitignore'), '.sdd/\n');
    git(root, ['init', '-q', '-b', 'main']);
    git(root, ['add', '-A']);
    git(root, ['-c', 'user.name=demo', '-c', 'user.email=demo@stepchain.invalid', 'commit', '-q', '-m', 'initial']);
    const demoEnv = {
        ...env,
        STEPCHAIN_AUDIT_KEY_PATH: external_node_path_default().join(root, '.sdd-keys', 'audit.key'),
        GIT_AUTHOR_NAME: 'stepchain demo',
        GIT_AUTHOR_EMAIL: 'demo@stepchain.invalid',
        GIT_COMMITTER_NAME: 'stepchain demo',
        GIT_COMMITTER_EMAIL: 'demo@stepchain.invalid',
    };
    write(`stepchain demo: a sample agent run in ${root}\n`);
    const ctx = makeContext(root, demoEnv, write);
    for (const section of DEMO_SECTIONS)
        await section(ctx);
    write('\n== Walk it yourself ==\n');
    write(`cd ${root}\n`);
    // The commands below say `stepchain`: the bundle this demo runs from, unless it is installed (npm link).
    const cli = process.argv[1] !== undefined && /\.js$/.test(process.argv[1]) ? external_node_path_default().resolve(process.argv[1]) : 'dist/cli.js';
    write(`alias stepchain="node ${cli}"     # or: npm link, once\n`);
    for (const line of ctx.epilogue)
        write(`${line}\n`);
    return root;
}

;// CONCATENATED MODULE: ./src/cli/commands/demo.ts

const demoCommand = {
    name: ['demo'],
    usage: '',
    summary: 'Record a sample agent run into a temporary project and show every capability on it (npm start).',
    description: 'It touches nothing outside its temporary directory, and ends by printing commands to walk the run yourself.',
    options: {},
    examples: [{ run: 'stepchain demo', what: 'the tour' }],
    exitCodes: { 0: 'done', 1: 'a step of the tour failed' },
    async run(_args, io) {
        await runDemo((s) => process.stdout.write(s), io.env);
        return 0;
    },
};

;// CONCATENATED MODULE: ./src/replay/step.ts


/**
 * The step model shared by the terminal replay and the HTML report: what a step
 * shows, what changed since the previous one, and search across steps.
 */
/** The fields an operator reads, in display order. */
const CONTENT_FIELDS = ['model', 'prompt', 'tool_call', 'tool_result', 'blob_refs', 'input_hash'];
/** Equal as Python would hash them (key order does not matter). */
const same = (a, b) => encode_canonicalOfRead(a) === encode_canonicalOfRead(b);
function entriesOf(v) {
    return v instanceof Map ? [...v] : Object.entries(v);
}
const step_isObj = (v) => isJsonObject(v) || v instanceof Map;
function step_walk(pathName, a, b, depth, out) {
    if (same(a, b))
        return;
    if (depth < 4 && step_isObj(a) && step_isObj(b)) {
        const left = new Map(entriesOf(a));
        const right = new Map(entriesOf(b));
        for (const [k, v] of left) {
            const p = `${pathName}.${k}`;
            if (!right.has(k))
                out.push({ path: p, kind: 'removed', before: v });
            else
                step_walk(p, v, right.get(k), depth + 1, out);
        }
        for (const [k, v] of right)
            if (!left.has(k))
                out.push({ path: `${pathName}.${k}`, kind: 'added', after: v });
        return;
    }
    out.push({ path: pathName, kind: 'changed', before: a, after: b });
}
/**
 * What changed from `prev` to `cur`, field by field, descending into objects.
 * Hashes, seq and time always change and are not listed; `prev` undefined
 * (the first step) gives no changes.
 */
function stepChanges(prev, cur) {
    if (prev === undefined)
        return [];
    const out = [];
    for (const f of CONTENT_FIELDS)
        step_walk(f, prev[f], cur[f], 0, out);
    return out;
}
/** The content fields whose values differ between two rows (not descending). */
function fieldsChanged(a, b) {
    return CONTENT_FIELDS.filter((f) => !same(a[f], b[f]));
}
/** The tool a step called: `tool_call.name` when there is one, else a preview. */
function toolName(row) {
    const tc = row.tool_call;
    if (tc === null)
        return '';
    if (typeof tc === 'string')
        return tc;
    if (step_isObj(tc)) {
        const name = new Map(entriesOf(tc)).get('name');
        if (typeof name === 'string')
            return name;
    }
    return preview(tc);
}
function stepSummary(e) {
    const r = e.row;
    return {
        seq: r.seq,
        time: isoTime(r.ts),
        model: r.model === null ? '' : preview(r.model),
        tool: toolName(r),
        step_hash: r.step_hash,
        prompt: r.prompt === null ? '' : preview(r.prompt),
    };
}
const searchText = new WeakMap();
/** Everything searchable in a step, lower-cased (cached per entry). */
function stepSearchText(e) {
    let t = searchText.get(e);
    if (t === undefined) {
        const r = e.row;
        t = [
            String(r.seq),
            preview(r.model),
            preview(r.prompt),
            preview(r.tool_call),
            preview(r.tool_result),
            r.step_hash,
            r.prev_hash,
            r.input_hash,
            ...r.blob_refs,
        ]
            .join('\n')
            .toLowerCase();
        searchText.set(e, t);
    }
    return t;
}
/** Whether a step matches a search (case-insensitive substring of its fields). */
function stepMatches(e, query) {
    return query.length > 0 && stepSearchText(e).includes(query.toLowerCase());
}
/**
 * The index of the next step matching `query`, after `from` going forward (or
 * before it going backward), wrapping around; `from` itself is tried last.
 * Returns -1 when no step matches.
 */
function findStep(entries, query, from, direction = 1) {
    const n = entries.length;
    if (n === 0 || query.length === 0)
        return -1;
    for (let k = 1; k <= n; k++) {
        const i = (((from + direction * k) % n) + n) % n;
        if (stepMatches(entries[i], query))
            return i;
    }
    return -1;
}
/** The indexes of all matching steps (for "match i of n"). */
function matchingSteps(entries, query) {
    const out = [];
    entries.forEach((e, i) => {
        if (stepMatches(e, query))
            out.push(i);
    });
    return out;
}

;// CONCATENATED MODULE: ./src/replay/body.ts




const PREVIEW_CHARS = 160;
const blobCache = new WeakMap();
/** A blob's size and preview, read once per source. */
function blobInfo(source, digest, inputHash) {
    let cache = blobCache.get(source);
    if (cache === undefined)
        blobCache.set(source, (cache = new Map()));
    const key = `${digest}:${inputHash === digest}`;
    let info = cache.get(key);
    if (info === undefined) {
        const bytes = source.blobs.get(digest);
        info = {
            digest,
            present: bytes !== undefined,
            size: bytes?.length ?? null,
            input: digest === inputHash,
            preview: null,
            binary: false,
        };
        if (bytes !== undefined) {
            const head = bytes.subarray(0, PREVIEW_CHARS * 4);
            let text;
            try {
                text = decodeUtf8(head.length < bytes.length ? trimUtf8(head) : head);
            }
            catch {
                text = undefined;
            }
            if (text === undefined || text.includes('\u0000'))
                info.binary = true;
            else
                info.preview = [...text].slice(0, PREVIEW_CHARS).join('');
        }
        cache.set(key, info);
    }
    return info;
}
/** Drops a UTF-8 sequence cut at the end of a slice. */
function trimUtf8(b) {
    let end = b.length;
    let back = 0;
    while (end > 0 && back < 4 && (b[end - 1] & 0xc0) === 0x80) {
        end--;
        back++;
    }
    if (end > 0 && b[end - 1] >= 0xc0)
        end--;
    return b.subarray(0, end);
}
function stepBlobs(source, e) {
    return e.row.blob_refs.map((d) => blobInfo(source, d, e.row.input_hash));
}
function formatSize(n) {
    if (n < 1024)
        return `${n} B`;
    if (n < 1024 * 1024)
        return `${(n / 1024).toFixed(1)} KiB`;
    return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}
const LABEL = 12;
/** A change as one line: `~ tool_call.args.cmd: "a" → "b"`. */
function changeText(c, valueWidth = 60) {
    const v = (x) => truncate(sanitize(compactJson(x ?? null)), valueWidth);
    if (c.kind === 'added')
        return `+ ${c.path}: ${v(c.after)}`;
    if (c.kind === 'removed')
        return `- ${c.path}: ${v(c.before)}`;
    return `~ ${c.path}: ${v(c.before)} → ${v(c.after)}`;
}
/**
 * The body of one step, laid out for `width` columns: seq and time, model,
 * prompt, tool call, tool result, blobs, hashes, then what changed since the
 * previous step. Fields longer than `fieldLines` are cut with a marker unless
 * `expanded`. Every value is sanitized (a row cannot send escape sequences).
 */
function stepBody(source, index, options) {
    const e = source.entries[index];
    if (e === undefined)
        return { lines: [], truncated: false };
    const r = e.row;
    const width = Math.max(options.width, LABEL + 8);
    const valueWidth = width - LABEL;
    const maxLines = options.expanded ? Infinity : (options.fieldLines ?? 6);
    const maxChanges = options.expanded ? Infinity : (options.changeLines ?? 8);
    const doWrap = options.wrapLines ?? true;
    const lines = [];
    let truncated = false;
    const field = (label, values, style, cut = false) => {
        if (doWrap && cut && values.some((l) => text_displayWidth(l) > valueWidth))
            truncated = true;
        const pieces = !doWrap
            ? values
            : cut
                ? values.map((l) => truncate(l, valueWidth))
                : values.flatMap((l) => wrap(l, valueWidth));
        const shown = pieces.length > maxLines ? pieces.slice(0, maxLines) : pieces;
        shown.forEach((p, i) => lines.push({ text: `${i === 0 ? label.padEnd(LABEL) : ' '.repeat(LABEL)}${p}`, ...(style ? { style } : {}) }));
        if (pieces.length === 0)
            lines.push({ text: label });
        if (shown.length < pieces.length) {
            truncated = true;
            const more = pieces.length - shown.length;
            lines.push({
                text: `${' '.repeat(LABEL)}… ${more} more line${more === 1 ? '' : 's'} (Enter expands)`,
                style: 'marker',
            });
        }
    };
    field('seq', [
        options.showFile ? `${r.seq}  (line ${e.line} of ${sanitize(source.file)})` : `${r.seq}  (line ${e.line})`,
    ]);
    field('time', [`${isoTime(r.ts)}  (ts ${r.ts})`]);
    field('model', valueLines(r.model, valueWidth));
    field('prompt', valueLines(r.prompt, valueWidth));
    field('tool_call', valueLines(r.tool_call, valueWidth));
    field('tool_result', valueLines(r.tool_result, valueWidth));
    const blobs = stepBlobs(source, e);
    if (blobs.length === 0)
        field('blobs', ['(none)'], 'dim');
    else {
        field('blobs', blobs.map((b) => {
            const what = b.input ? ' input' : '';
            if (!b.present)
                return `${b.digest.slice(0, 16)}…${what}  MISSING`;
            const pv = b.binary ? '(binary)' : JSON.stringify(b.preview ?? '').slice(1, -1);
            return `${b.digest.slice(0, 16)}…${what}  ${formatSize(b.size ?? 0)}  ${sanitize(pv)}`;
        }), undefined, !options.expanded);
    }
    field('input_hash', [r.input_hash]);
    field('prev_hash', [r.prev_hash]);
    field('step_hash', [r.step_hash]);
    if (index > 0) {
        const changes = stepChanges(source.entries[index - 1].row, r);
        lines.push({ text: '' });
        if (changes.length === 0) {
            lines.push({ text: `no change in content since step ${index - 1}`, style: 'dim' });
        }
        else {
            lines.push({ text: `changed since step ${index - 1}:`, style: 'label' });
            const shown = changes.slice(0, maxChanges);
            for (const c of shown) {
                const text = changeText(c, options.expanded ? Infinity : Math.max(12, Math.floor((width - 6 - c.path.length) / 2)));
                if (!options.expanded && (text !== changeText(c, Infinity) || text_displayWidth(text) > width - 2))
                    truncated = true;
                const pieces = doWrap && options.expanded ? wrap(`  ${text}`, width) : [`  ${doWrap ? truncate(text, width - 2) : text}`];
                for (const p of pieces)
                    lines.push({ text: p, style: 'change' });
            }
            if (shown.length < changes.length) {
                truncated = true;
                lines.push({ text: `  … ${changes.length - shown.length} more changes (Enter expands)`, style: 'marker' });
            }
        }
    }
    else {
        lines.push({ text: '' });
        lines.push({ text: 'first step (genesis: prev_hash is 64 zeros)', style: 'dim' });
    }
    return { lines, truncated };
}
/** Whether a line is wider than `width` (for tests of the layout). */
function overflows(lines, width) {
    return lines.some((l) => displayWidth(l.text) > width);
}
/** Throws InputError unless `seq` is a step of the source. */
function entryAt(source, seq) {
    const e = source.entries[seq];
    if (e === undefined) {
        throw new errors_InputError(`${source.file}: step ${seq} is out of range (the journal has ${source.steps} step${source.steps === 1 ? '' : 's'}${source.steps > 0 ? `, 0..${source.steps - 1}` : ''})`);
    }
    return e;
}

;// CONCATENATED MODULE: ./src/replay/source.ts






/**
 * A chain that does not verify: nothing is displayed. `faults` are the
 * `file:line: kind: message` lines to print, one per fault.
 */
class BrokenChainError extends errors_IntegrityError {
    file;
    faults;
    name = 'BrokenChainError';
    constructor(file, faults, what = 'chain', details) {
        super(`${file}: the ${what} does not verify (${faults.length} fault${faults.length === 1 ? '' : 's'}); refusing to display it`);
        this.file = file;
        this.faults = faults;
        if (details !== undefined)
            this.details = details;
    }
}
/** The CAS directories that may hold a journal's blobs, first found wins. */
function casBlobs(dirs) {
    const unique = [...new Set(dirs.map((d) => external_node_path_default().resolve(d)))];
    const stores = unique.map((d) => new Cas(d, false));
    return {
        where: unique.join(', '),
        get(digest) {
            for (const s of stores) {
                const b = s.get(digest);
                if (b !== undefined && sha256Hex(b) === digest)
                    return b;
            }
            return undefined;
        },
    };
}
/** Blobs bundled in memory (a receipt's `blobs/`); a blob whose bytes do not match its name is absent. */
function mapBlobs(where, blobs) {
    return {
        where,
        get(digest) {
            const b = blobs.get(digest);
            return b !== undefined && sha256Hex(b) === digest ? b : undefined;
        },
    };
}
function isRedacted(entries) {
    return entries.some((e) => e.row.prompt === REDACTED ||
        e.row.model === REDACTED ||
        e.row.tool_call === REDACTED ||
        e.row.tool_result === REDACTED);
}
/** Throws BrokenChainError unless the read journal verified. */
function requireVerified(file, r) {
    if (!r.ok)
        throw new BrokenChainError(file, r.errors.map((f) => describeFault(file, f)), 'chain', r.errors.map((f) => ({ file, line: f.line, kind: f.kind, message: f.message })));
}
/** Builds a source from an already verified read. */
function sourceFromRead(r, init) {
    return { ...init, head_hash: r.head_hash, steps: r.steps, entries: r.entries, redacted: isRedacted(r.entries) };
}
/** A path-like target taken relative to `cwd`; an agent id as is. */
function targetPath(target, cwd) {
    const isPath = target.includes('/') || target.includes((external_node_path_default()).sep) || target.endsWith('.jsonl') || looksLikeReceipt(target);
    return isPath ? external_node_path_default().resolve(cwd, target) : target;
}
/**
 * Opens `<agent|dir|file>` for display: resolves it, reads it and verifies the
 * chain from genesis. A broken chain throws BrokenChainError (exit 1); a missing
 * journal or bad id throws InputError (exit 2).
 */
function openJournal(target, options = {}) {
    const cwd = options.cwd ?? process.cwd();
    const root = external_node_path_default().resolve(cwd, options.root ?? '.');
    const { file, dir, agentId } = resolveJournal(targetPath(target, cwd), root);
    const r = readJournalFile(file);
    requireVerified(file, r);
    const projectRoot = projectRootOf(dir);
    const cas = [projectRoot, root].filter((x) => x !== undefined).map(casDir);
    return sourceFromRead(r, {
        kind: 'journal',
        file,
        agentId,
        blobs: casBlobs(cas),
        ...(projectRoot === undefined ? {} : { projectRoot }),
    });
}
/** A row exactly as stored (key order, exact integers, float-ness), for `--json`. */
function storedRow(entry) {
    return parse(decodeUtf8(entry.bytes), { objects: 'map' });
}

;// CONCATENATED MODULE: ./src/replay/diff.ts





/** Reads `<agent|dir|file|receipt>` for a diff: never refused for not verifying (InputError when missing). */
function openForDiff(target, options = {}) {
    const cwd = options.cwd ?? process.cwd();
    const t = targetPath(target, cwd);
    if (external_node_path_default().isAbsolute(t) && looksLikeReceipt(t)) {
        const keys = options.publicKeys ?? [];
        const v = verifyReceipt(t, keys.length > 0 ? { publicKeys: keys } : {});
        const errors = v.errors.map((f) => ({
            file: f.member === undefined ? t : `${t}:${f.member}`,
            line: f.line ?? null,
            kind: f.kind,
            message: f.message,
        }));
        let journal;
        try {
            journal = loadReceipt(t).journal;
        }
        catch (e) {
            // An archive that cannot be read at all has no chain to compare.
            if (e instanceof ReceiptFormatError)
                throw new BrokenChainError(t, v.errors.map((f) => describeReceiptFault(t, f)), 'receipt', errors);
            throw e;
        }
        const r = readJournalBytes(journal);
        const verdict = signatureVerdict(v, keys.length);
        const chainErrors = errors.filter((f) => f.kind !== 'no_trusted_key');
        return {
            file: t,
            kind: 'receipt',
            verified: chainErrors.length === 0,
            errors: chainErrors,
            signature: { status: verdict.status, holds: verdict.holds },
            head_hash: r.head_hash,
            steps: r.steps,
            entries: r.entries,
        };
    }
    const root = external_node_path_default().resolve(cwd, options.root ?? '.');
    const { file } = resolveJournal(t, root);
    const r = readJournalFile(file);
    return {
        file,
        kind: 'journal',
        verified: r.ok,
        errors: r.errors.map((f) => ({ file, line: f.line, kind: f.kind, message: f.message })),
        signature: null,
        head_hash: r.head_hash,
        steps: r.steps,
        entries: r.entries,
    };
}
function diffJournals(left, right) {
    const base = {
        left_steps: left.steps,
        right_steps: right.steps,
        left_head: left.head_hash,
        right_head: right.head_hash,
    };
    const n = Math.min(left.entries.length, right.entries.length);
    for (let i = 0; i < n; i++) {
        const a = left.entries[i];
        const b = right.entries[i];
        const fields = fieldsChanged(a.row, b.row);
        const hashes = ['prev_hash', 'step_hash'].filter((k) => a.row[k] !== b.row[k]);
        if (fields.length > 0 || hashes.length > 0) {
            return {
                diverged: true,
                reason: 'step_mismatch',
                seq: i,
                fields_changed: fields,
                hashes_changed: hashes,
                left: storedRow(a),
                right: storedRow(b),
                left_line: a.line,
                right_line: b.line,
                ...base,
            };
        }
    }
    if (left.entries.length !== right.entries.length) {
        const l = left.entries[n];
        const r = right.entries[n];
        return {
            diverged: true,
            reason: 'length_mismatch',
            seq: n,
            fields_changed: [],
            hashes_changed: [],
            left: l === undefined ? null : storedRow(l),
            right: r === undefined ? null : storedRow(r),
            left_line: l?.line ?? null,
            right_line: r?.line ?? null,
            ...base,
        };
    }
    return {
        diverged: false,
        reason: null,
        seq: null,
        fields_changed: [],
        hashes_changed: [],
        left: null,
        right: null,
        left_line: null,
        right_line: null,
        ...base,
    };
}
/** A side's status for `diff --json`. */
function diffSideDocument(side) {
    return {
        file: side.file,
        kind: side.kind,
        verified: side.verified,
        signature: side.signature,
        head_hash: side.head_hash,
        steps: side.steps,
        errors: side.errors,
    };
}
/** Whether a side holds as shown: its chain verified and, for a receipt, its signature verdict holds. */
function sideHolds(side) {
    return side.verified && (side.signature?.holds ?? true);
}

;// CONCATENATED MODULE: ./src/replay/receipt.ts




/**
 * Receipts (docs/format.md §3) as replay sources: the whole receipt is verified first
 * (layout, manifest, chain, bundled blobs, and the signature when trusted keys
 * are given), then its journal is walked from memory. Nothing is extracted.
 */
/** Whether a file is a receipt (see `looksLikeReceipt`). */
const isReceiptFile = looksLikeReceipt;
/**
 * Opens a receipt for display. Any fault refuses it (BrokenChainError, exit 1),
 * except that a signed receipt opened without a trusted key is shown with its
 * signature marked unchecked: its chain and manifest still verified.
 */
function openReceipt(file, options = {}) {
    const publicKeys = options.publicKeys ?? [];
    const v = verifyReceipt(file, publicKeys.length > 0 ? { publicKeys } : {});
    const faults = v.errors.filter((f) => !(f.kind === 'no_trusted_key' && publicKeys.length === 0));
    if (faults.length > 0)
        throw new BrokenChainError(file, faults.map((f) => describeReceiptFault(file, f)), 'receipt', faults.map((f) => ({
            file: f.member === undefined ? file : `${file}:${f.member}`,
            line: f.line ?? null,
            kind: f.kind,
            message: f.message,
        })));
    const loaded = loadReceipt(file);
    const r = readJournalBytes(loaded.journal);
    requireVerified(`${file}:journal/000000.jsonl`, r);
    return {
        ...sourceFromRead(r, {
            kind: 'receipt',
            file,
            agentId: loaded.manifest.agent_id,
            blobs: mapBlobs(`${external_node_path_default().basename(file)}:blobs/`, loaded.blobs),
        }),
        signed: v.signed,
        signatureChecked: v.signature_ok === true,
    };
}

;// CONCATENATED MODULE: ./src/replay/open.ts



/**
 * Opens `<agent|dir|file|receipt>` for display, verified first: a journal's
 * chain from genesis, or the whole receipt. Throws BrokenChainError (exit 1)
 * when it does not verify, InputError (exit 2) when it cannot be found or read.
 */
function openReplay(target, options = {}) {
    const cwd = options.cwd ?? process.cwd();
    const t = targetPath(target, cwd);
    if (external_node_path_default().isAbsolute(t) && isReceiptFile(t))
        return openReceipt(t, options.publicKeys ? { publicKeys: options.publicKeys } : {});
    return openJournal(target, { cwd, ...(options.root === undefined ? {} : { root: options.root }) });
}

;// CONCATENATED MODULE: ./src/replay/screen.ts




function initialState(index = 0, options = {}) {
    return {
        index,
        expanded: false,
        scroll: 0,
        mode: 'normal',
        input: '',
        query: '',
        message: '',
        panel: null,
        limit: options.limit ?? null,
        canFork: options.canFork ?? true,
    };
}
/** How many steps the walk covers: all of them, or the first `limit`. */
function walkedSteps(source, state) {
    return state.limit === null ? source.steps : Math.min(source.steps, Math.max(1, state.limit));
}
/** Splits raw terminal input into keys (arrow keys arrive as escape sequences, several keys may share a chunk). */
function parseKeys(data) {
    const keys = [];
    let i = 0;
    while (i < data.length) {
        const c = data[i];
        if (c === '\x1b') {
            const rest = data.slice(i);
            const m = /^\x1b(?:\[|O)([0-9;]*)([A-Za-z~])/.exec(rest);
            if (m) {
                const code = m[2] === '~' ? `${m[1]}~` : m[2];
                const map = {
                    A: 'up',
                    B: 'down',
                    C: 'right',
                    D: 'left',
                    H: 'home',
                    F: 'end',
                    '5~': 'pgup',
                    '6~': 'pgdn',
                    '1~': 'home',
                    '4~': 'end',
                    '7~': 'home',
                    '8~': 'end',
                };
                const kind = map[code];
                if (kind !== undefined)
                    keys.push({ kind });
                i += m[0].length;
                continue;
            }
            keys.push({ kind: 'escape' });
            i++;
            continue;
        }
        if (c === '\r' || c === '\n')
            keys.push({ kind: 'enter' });
        else if (c === '\x7f' || c === '\b')
            keys.push({ kind: 'backspace' });
        else if (c === '\x03' || c === '\x04')
            keys.push({ kind: 'interrupt' });
        else if (c >= ' ') {
            const cp = data.codePointAt(i);
            const ch = String.fromCodePoint(cp);
            keys.push({ kind: 'char', char: ch });
            i += ch.length;
            continue;
        }
        i++;
    }
    return keys;
}
/** Every key, for `?`: shown in a panel instead of the step. */
function keyList(canFork) {
    const rows = [
        ['n  →  l', 'next step'],
        ['p  ←  h', 'previous step'],
        ['g  Home', 'first step'],
        ['G  End', 'last step'],
        ['digits ⏎', 'jump to that seq (Esc cancels)'],
        ['/text ⏎', 'search every field and hash (case-insensitive, wraps around)'],
        ['/ ⏎', 'the same search again, forward'],
        ['N', 'the same search, backward'],
        ['⏎', 'expand: every field in full (again: collapse)'],
        ['↑ ↓  j k', 'scroll one line'],
        ['PgUp PgDn Space', 'scroll one page'],
        ...(canFork
            ? [['f', 'fork the run at this step into a new git worktree and branch (asks first)']]
            : []),
        ['?', 'this list'],
        ['q  Ctrl-C', 'quit'],
    ];
    return ['Keys (any key returns to the step)', '', ...rows.map(([k, what]) => `  ${k.padEnd(16)}${what}`)];
}
// Key hints in display order, with a priority: on a narrow screen the footer keeps the most important ones.
const HINTS = [
    ['n/→ next', 1],
    ['p/← prev', 1],
    ['g/G first/last', 3],
    ['seq⏎ jump', 4],
    ['/ search', 2],
    ['⏎ expand', 5],
    ['↑↓ scroll', 7],
    ['f fork', 6],
    ['? keys', 8],
    ['q quit', 0],
];
/** The key hints that fit in `width` columns, most important first (`f fork` only where it works). */
function keyHints(width, canFork = true) {
    const chosen = new Set();
    let used = 0;
    const hints = HINTS.filter(([h]) => canFork || h !== 'f fork');
    for (const [hint] of [...hints].sort((a, b) => a[1] - b[1])) {
        const w = text_displayWidth(hint) + (chosen.size > 0 ? 2 : 0);
        if (used + w > width)
            continue;
        chosen.add(hint);
        used += w;
    }
    return hints
        .filter(([h]) => chosen.has(h))
        .map(([h]) => h)
        .join('  ');
}
// The last body laid out: a key and the repaint after it need the same one, and a step with
// megabyte fields is worth laying out once.
let lastBody;
function bodyOf(source, index, width, expanded) {
    const c = lastBody;
    if (c && c.source === source && c.index === index && c.width === width && c.expanded === expanded)
        return c.body;
    const body = stepBody(source, index, { width, expanded });
    lastBody = { source, index, width, expanded, body };
    return body;
}
function bodyHeight(size) {
    return Math.max(1, size.height - 3);
}
function screen_go(state, index, message = '') {
    return { ...state, index, scroll: 0, expanded: index === state.index ? state.expanded : false, message };
}
function search(state, source, query, direction) {
    if (query.length === 0)
        return { ...state, mode: 'normal', input: '', message: 'no search yet: press / and type some text' };
    const n = walkedSteps(source, state);
    const entries = n === source.entries.length ? source.entries : source.entries.slice(0, n);
    const i = findStep(entries, query, state.index, direction);
    if (i < 0)
        return { ...state, mode: 'normal', input: '', query, message: `no step matches "${sanitize(query)}"` };
    const all = matchingSteps(entries, query);
    const wrapped = direction === 1 ? i <= state.index : i >= state.index;
    const msg = `"${sanitize(query)}": match ${all.indexOf(i) + 1} of ${all.length} (seq ${i})${wrapped && all.length > 1 ? ', wrapped' : ''}  / ⏎ next, N previous`;
    return { ...screen_go({ ...state, mode: 'normal', input: '', query }, i), message: msg };
}
/** Applies one key. Returns the new state and what the driver must do (quit, fork). */
function reduce(state, key, source, size) {
    const last = walkedSteps(source, state) - 1;
    if (key.kind === 'interrupt')
        return { state, action: 'quit' };
    // A panel (the key list, a fork's result) is read, then any key returns to the step.
    if (state.panel !== null)
        return { state: { ...state, panel: null, message: '' } };
    if (state.mode === 'confirm-fork') {
        if (key.kind === 'char' && (key.char === 'y' || key.char === 'Y'))
            return { state: { ...state, mode: 'normal', message: `forking from step ${state.index}…` }, action: 'fork' };
        return { state: { ...state, mode: 'normal', message: 'fork cancelled: nothing was created' } };
    }
    if (state.mode === 'jump' || state.mode === 'search') {
        if (key.kind === 'escape')
            return { state: { ...state, mode: 'normal', input: '', message: '' } };
        if (key.kind === 'backspace') {
            const input = [...state.input].slice(0, -1).join('');
            return {
                state: input.length === 0 && state.mode === 'jump' ? { ...state, mode: 'normal', input } : { ...state, input },
            };
        }
        if (key.kind === 'enter') {
            if (state.mode === 'search')
                return { state: search(state, source, state.input || state.query, 1) };
            const seq = Number(state.input);
            const done = { ...state, mode: 'normal', input: '' };
            if (!Number.isSafeInteger(seq) || seq > last)
                return {
                    state: {
                        ...done,
                        message: `no step ${state.input}: seqs are 0..${last}${last + 1 < source.steps ? ` (--limit ${last + 1})` : ''}`,
                    },
                };
            return { state: screen_go(done, seq) };
        }
        if (key.kind === 'char') {
            if (state.mode === 'jump') {
                if (/^[0-9]$/.test(key.char))
                    return { state: state.input.length < 15 ? { ...state, input: state.input + key.char } : state };
                return { state: { ...state, mode: 'normal', input: '', message: 'jump cancelled: type digits, then Enter' } };
            }
            return { state: { ...state, input: state.input + key.char } };
        }
        return { state };
    }
    const body = bodyOf(source, state.index, Math.max(1, size.width), state.expanded).lines.length;
    const maxScroll = Math.max(0, body - bodyHeight(size));
    const scrollBy = (d) => ({
        ...state,
        scroll: Math.min(maxScroll, Math.max(0, state.scroll + d)),
        message: '',
    });
    switch (key.kind) {
        case 'right':
            return {
                state: state.index < last
                    ? screen_go(state, state.index + 1)
                    : {
                        ...state,
                        message: `this is the last step${last + 1 < source.steps ? ` walked (--limit ${last + 1} of ${source.steps})` : ''}`,
                    },
            };
        case 'left':
            return { state: state.index > 0 ? screen_go(state, state.index - 1) : { ...state, message: 'this is the first step' } };
        case 'home':
            return { state: screen_go(state, 0) };
        case 'end':
            return { state: screen_go(state, last) };
        case 'up':
            return { state: scrollBy(-1) };
        case 'down':
            return { state: scrollBy(1) };
        case 'pgup':
            return { state: scrollBy(-bodyHeight(size)) };
        case 'pgdn':
            return { state: scrollBy(bodyHeight(size)) };
        case 'enter':
            return {
                state: {
                    ...state,
                    expanded: !state.expanded,
                    scroll: 0,
                    message: state.expanded ? 'collapsed' : 'expanded: every field in full (⏎ collapses, ↑↓ scroll)',
                },
            };
        case 'escape':
        case 'backspace':
            return { state: { ...state, message: '' } };
        case 'char':
            break;
    }
    const ch = key.char;
    if (ch === 'n' || ch === 'l')
        return reduce(state, { kind: 'right' }, source, size);
    if (ch === 'p' || ch === 'h')
        return reduce(state, { kind: 'left' }, source, size);
    if (ch === 'g')
        return { state: screen_go(state, 0) };
    if (ch === 'G')
        return { state: screen_go(state, last) };
    if (ch === 'j')
        return { state: scrollBy(1) };
    if (ch === 'k')
        return { state: scrollBy(-1) };
    if (ch === ' ')
        return { state: scrollBy(bodyHeight(size)) };
    if (/^[0-9]$/.test(ch))
        return { state: { ...state, mode: 'jump', input: ch, message: '' } };
    if (ch === '/')
        return { state: { ...state, mode: 'search', input: '', message: '' } };
    if (ch === 'N')
        return { state: search(state, source, state.query, -1) };
    if (ch === 'q' || ch === 'Q')
        return { state, action: 'quit' };
    if (ch === 'f') {
        if (!state.canFork)
            return {
                state: {
                    ...state,
                    message: `a receipt cannot be forked: fork the journal it came from (stepchain fork <agent> --from-step ${state.index})`,
                },
            };
        return { state: { ...state, mode: 'confirm-fork', message: '' } };
    }
    if (ch === '?')
        return { state: { ...state, panel: keyList(state.canFork), message: '' } };
    return { state: { ...state, message: `unknown key ${JSON.stringify(ch)} (? lists the keys)` } };
}
/**
 * A receipt's signature state, for headers and status lines (one meaning of
 * "signed", see signatureVerdict): a receipt opened for display verified
 * everything but, given no trusted key, its signature.
 */
function sourceSignature(source) {
    if (source.kind !== 'receipt')
        return undefined;
    return signatureVerdict({ signed: source.signed === true, signature_ok: source.signatureChecked === true, key_id: null }, source.signatureChecked === true ? 1 : 0);
}
/** A receipt's signature state as a suffix (`, unsigned`, `, signature ✓`, `, signature NOT checked ...`). */
function signatureText(source) {
    const v = sourceSignature(source);
    if (v === undefined)
        return '';
    if (v.status === 'unsigned')
        return ', unsigned';
    if (v.status === 'verified')
        return ', signature ✓';
    return `, ${v.text}`;
}
/**
 * The header: `step N / M` (N = seq + 1), the chain status, the head hash, the
 * agent and (receipts) the signature. Parts are dropped by priority to fit
 * `width`, never the step or the chain status, nor an unchecked signature.
 */
function headerText(source, state, width = Infinity) {
    const n = walkedSteps(source, state);
    const sig = sourceSignature(source);
    // [text, priority]: 0 is always shown; higher numbers go first when the line is too narrow.
    const parts = [
        [`step ${state.index + 1} / ${n}${n < source.steps ? ` (of ${source.steps}, --limit)` : ''}`, 0],
        [`seq ${state.index}`, 5],
        [`head ${shortHash(source.head_hash)}`, 2],
        ['chain ✓ verified', 0],
        [sanitize(source.agentId), 3],
    ];
    if (source.kind === 'receipt') {
        parts.push([`receipt${source.redacted ? ' (redacted)' : ''}`, 4]);
        if (sig !== undefined)
            parts.push([
                sig.status === 'verified' ? 'signature ✓' : sig.status === 'unsigned' ? 'unsigned' : 'signature NOT checked',
                sig.warn ? 0 : 1,
            ]);
    }
    const join = (ps) => ps.map(([t]) => t).join('  ');
    let shown = parts;
    for (let drop = 5; drop >= 1 && text_displayWidth(join(shown)) > width; drop--)
        shown = shown.filter(([, p]) => p < drop);
    return join(shown);
}
/** The body area: a panel's lines (wrapped, never cut) or the step's body, scrolled. */
function bodyArea(source, state, width, room) {
    if (state.panel !== null) {
        const lines = state.panel.flatMap((l) => wrap(l, width));
        return {
            rows: lines.slice(0, room).map((text, i) => ({ text, ...(i === 0 ? { style: 'label' } : {}) })),
            label: '──',
        };
    }
    const { lines, truncated } = bodyOf(source, state.index, width, state.expanded);
    const scroll = Math.min(state.scroll, Math.max(0, lines.length - room));
    const shown = lines.slice(scroll, scroll + room);
    const more = lines.length > room ? ` lines ${scroll + 1}-${scroll + shown.length} of ${lines.length} (↑↓ scroll) ` : '';
    const mark = truncated && !state.expanded ? ' ⏎ expands ' : '';
    return {
        rows: shown.map((l) => ({ text: l.text, ...(l.style ? { style: l.style } : {}) })),
        label: `──${more}${mark}`,
    };
}
/** Lays out the whole screen: header, rule, the step's body (scrolled), footer. Exactly `height` lines of `width` columns. */
function renderScreen(source, state, size) {
    const width = Math.max(1, size.width);
    const height = Math.max(1, size.height);
    const warn = sourceSignature(source)?.warn === true;
    const out = [
        { text: fit(headerText(source, state, width), width), style: warn ? 'header-warn' : 'header' },
    ];
    if (height === 1)
        return out;
    const room = bodyHeight({ width, height });
    const { rows, label: labelText } = bodyArea(source, state, width, room);
    const label = sliceColumns(labelText, width);
    out.push({ text: label + '─'.repeat(Math.max(0, width - text_displayWidth(label))), style: 'rule' });
    if (height === 2)
        return out;
    for (let i = 0; i < room && out.length < height - 1; i++) {
        const l = rows[i];
        out.push(l === undefined
            ? { text: ' '.repeat(width) }
            : { text: fit(l.text, width), ...(l.style ? { style: l.style } : {}) });
    }
    let footer;
    if (state.mode === 'jump')
        footer = {
            text: fit(`jump to seq (0..${walkedSteps(source, state) - 1}): ${state.input}▏ ⏎ go, Esc cancel`, width),
            style: 'prompt',
        };
    else if (state.mode === 'search')
        footer = {
            text: fit(`/${sanitize(state.input)}▏ ⏎ search${state.query ? ` (empty: "${sanitize(state.query)}" again)` : ''}, Esc cancel`, width),
            style: 'prompt',
        };
    else if (state.mode === 'confirm-fork')
        footer = {
            text: fit(`fork the run at step ${state.index} into a new git worktree and branch? y/N`, width),
            style: 'prompt',
        };
    else if (state.panel !== null)
        footer = { text: fit('any key returns to the step', width), style: 'footer' };
    else
        footer = { text: fit(sanitize(state.message) || keyHints(width, state.canFork), width), style: 'footer' };
    out.push(footer);
    return out;
}

;// CONCATENATED MODULE: ./src/replay/tty.ts

const tty_STYLE = {
    header: '\x1b[7m',
    'header-warn': '\x1b[7;33m',
    rule: '\x1b[2m',
    label: '\x1b[1m',
    dim: '\x1b[2m',
    marker: '\x1b[2;3m',
    change: '\x1b[36m',
    warn: '\x1b[31m',
    prompt: '\x1b[1m',
};
/**
 * Each line is cleared first and then written whole (lines are exactly the
 * screen width): erasing after the text would, in a terminal's pending-wrap
 * state at the last column, erase the line's last character.
 */
function paint(lines) {
    let s = '';
    lines.forEach((l, i) => {
        const on = l.style ? (tty_STYLE[l.style] ?? '') : '';
        s += `\x1b[${i + 1};1H\x1b[2K${on}${l.text}${on ? '\x1b[0m' : ''}`;
    });
    return s;
}
/** Runs the interactive walk until `q`; resolves when the terminal is restored. */
function runInteractive(source, options = {}) {
    const input = options.input ?? process.stdin;
    const output = options.output ?? process.stdout;
    const walk = {
        canFork: options.fork !== undefined,
        ...(options.limit === undefined ? {} : { limit: options.limit }),
    };
    const steps = walkedSteps(source, initialState(0, walk));
    let state = initialState(Math.min(Math.max(0, options.start ?? 0), Math.max(0, steps - 1)), walk);
    const size = () => ({ width: output.columns || 80, height: output.rows || 24 });
    let busy = false;
    let restored = false;
    return new Promise((resolve) => {
        const render = () => {
            output.write(paint(renderScreen(source, state, size())));
        };
        const restore = () => {
            if (restored)
                return;
            restored = true;
            input.off('data', onData);
            output.off('resize', render);
            process.off('SIGWINCH', render);
            process.off('SIGINT', onSignal);
            process.off('SIGTERM', onSignal);
            process.off('exit', restore);
            if (input.isTTY)
                input.setRawMode(false);
            input.pause();
            output.write('\x1b[0m\x1b[?25h\x1b[?1049l');
        };
        const onSignal = (sig) => {
            restore();
            process.exit(sig === 'SIGINT' ? 130 : 143);
        };
        const quit = () => {
            restore();
            resolve();
        };
        const doFork = async () => {
            if (!options.fork) {
                state = { ...state, message: 'fork is not available here' };
                return;
            }
            busy = true;
            render();
            try {
                const said = await options.fork(state.index);
                // The result is shown whole, in a panel (a footer line would cut the worktree path and branch).
                state = { ...state, message: '', panel: typeof said === 'string' ? [said] : said };
            }
            catch (e) {
                state = { ...state, message: '', panel: ['fork failed', '', ...e.message.split('\n')] };
            }
            finally {
                busy = false;
            }
        };
        function onData(chunk) {
            if (busy)
                return; // keys typed while a fork runs are dropped
            for (const key of parseKeys(typeof chunk === 'string' ? chunk : chunk.toString('utf8'))) {
                const r = reduce(state, key, source, size());
                state = r.state;
                if (r.action === 'quit')
                    return quit();
                if (r.action === 'fork') {
                    void doFork().then(render);
                    return;
                }
            }
            render();
        }
        process.on('SIGINT', onSignal);
        process.on('SIGTERM', onSignal);
        process.on('exit', restore);
        process.on('SIGWINCH', render);
        output.on('resize', render);
        output.write('\x1b[?1049h\x1b[?25l');
        if (input.isTTY)
            input.setRawMode(true);
        input.setEncoding('utf8');
        input.on('data', onData);
        input.resume();
        render();
    });
}

;// CONCATENATED MODULE: ./src/replay/views.ts





/** The non-interactive outputs of `replay`, `show` and `diff`: plain lines and JSON documents. */
function statusLine(source) {
    const what = source.kind === 'receipt' ? `receipt ${source.file}` : source.file;
    const extra = source.kind === 'receipt' ? `${source.redacted ? ', redacted' : ''}${signatureText(source)}` : '';
    return `${sanitize(source.agentId)}: ${source.steps} step${source.steps === 1 ? '' : 's'}, head ${source.head_hash}, chain verified (${sanitize(what)}${extra})`;
}
/** The steps as a table (seq, time, model, tool, short step hash, prompt preview), first `limit` steps. */
function stepTable(source, limit) {
    const rows = source.entries.slice(0, limit ?? source.entries.length).map(stepSummary);
    // Widths by reduce, not Math.max(...rows): a journal can have more rows than a call has arguments.
    const widest = (min, f) => rows.reduce((m, r) => Math.max(m, f(r)), min);
    const seqW = widest(3, (r) => String(r.seq).length);
    const modelW = Math.min(28, widest(5, (r) => text_displayWidth(r.model)));
    const toolW = Math.min(16, widest(4, (r) => text_displayWidth(r.tool)));
    const head = `${'seq'.padStart(seqW)}  ${fit('time (UTC)', 20)}  ${fit('model', modelW)}  ${fit('tool', toolW)}  ${fit('step', 12)}  prompt`;
    const out = [statusLine(source), '', head];
    for (const r of rows) {
        out.push(`${String(r.seq).padStart(seqW)}  ${fit(r.time.slice(0, 19).replace('T', ' '), 20)}  ${fit(r.model, modelW)}  ${fit(r.tool, toolW)}  ${shortHash(r.step_hash)}  ${truncate(r.prompt, 60)}`);
    }
    if (rows.length < source.steps)
        out.push(`… ${source.steps - rows.length} more step${source.steps - rows.length === 1 ? '' : 's'} (--limit ${rows.length})`);
    return out;
}
/** A receipt's signature for `--json` (`{status, holds}`), or null for a journal. */
function signatureDocument(source) {
    const v = sourceSignature(source);
    return v === undefined ? null : { status: v.status, holds: v.holds };
}
/**
 * `replay --json`: `{ok, agent_id, head_hash, steps, signature, entries}`, rows
 * exactly as stored; `steps` counts them all; `ok` is false only for a receipt
 * whose signature was not checked (a chain that does not verify is an error document).
 */
function replayDocument(source, limit) {
    const signature = signatureDocument(source);
    return {
        ok: signature?.holds ?? true,
        agent_id: source.agentId,
        head_hash: source.head_hash,
        steps: source.steps,
        signature,
        entries: source.entries.slice(0, limit ?? source.entries.length).map(storedRow),
    };
}
/** One step in full, as lines (nothing cut). */
function showLines(source, seq) {
    const e = entryAt(source, seq);
    const out = [statusLine(source), '', `seq ${e.row.seq} (step ${e.row.seq + 1} of ${source.steps})`];
    for (const l of stepBody(source, seq, { width: 100, expanded: true, wrapLines: false, showFile: true }).lines)
        out.push(l.text);
    const blobs = stepBlobs(source, e);
    if (blobs.length > 0) {
        out.push('', `blobs (from ${sanitize(source.blobs.where)}):`);
        for (const b of blobs) {
            out.push(`  ${b.digest}${b.input ? '  (input)' : ''}`);
            if (!b.present)
                out.push('    MISSING: not in the store');
            else {
                out.push(`    ${b.size} bytes${b.binary ? ', binary' : ''}`);
                if (b.preview !== null)
                    for (const l of b.preview.replace(/\n$/, '').split('\n').slice(0, 6))
                        out.push(`    | ${sanitize(l)}`);
            }
        }
    }
    return out;
}
/** `show --json`: the row as stored, its 1-based line, and its blobs. */
function showDocument(source, seq) {
    const e = entryAt(source, seq);
    const signature = signatureDocument(source);
    return {
        ok: signature?.holds ?? true,
        agent_id: source.agentId,
        head_hash: source.head_hash,
        steps: source.steps,
        signature,
        seq: e.row.seq,
        line: e.line,
        entry: storedRow(e),
        blobs: stepBlobs(source, e),
    };
}
/** One side's verification status for `diff`: verified, or every fault. */
function diffSideLines(side, label, name) {
    const shown = `${label.padEnd(5)} ${sanitize(name)}`;
    const sig = side.signature === null
        ? ''
        : `, ${side.signature.status === 'not_checked' ? 'signature NOT checked' : side.signature.status.replace(/_/g, ' ')}`;
    if (side.verified)
        return [`${shown}: chain verified, ${side.steps} step${side.steps === 1 ? '' : 's'}, head ${side.head_hash}${sig}`];
    const out = [
        `${shown}: chain does NOT verify (${side.errors.length} fault${side.errors.length === 1 ? '' : 's'}), ${side.steps} well-formed row${side.steps === 1 ? '' : 's'}${sig}`,
    ];
    const shownFaults = side.errors.slice(0, 10);
    for (const f of shownFaults)
        out.push(`  ${sanitize(f.line === null ? (f.file ?? '') : `${f.file ?? ''}:${f.line}`)}: ${f.kind}: ${sanitize(f.message)}`);
    if (side.errors.length > shownFaults.length)
        out.push(`  … and ${side.errors.length - shownFaults.length} more`);
    return out;
}
/** `diff` as lines: each side's status (when given), the verdict, then the fields that differ at the divergence. */
function diffLines(d, leftName, rightName, sides) {
    const l = sanitize(leftName);
    const r = sanitize(rightName);
    const status = sides === undefined
        ? []
        : [...diffSideLines(sides.left, 'left', leftName), ...diffSideLines(sides.right, 'right', rightName)];
    if (!d.diverged)
        return [...status, `same: ${l} and ${r} have the same ${d.left_steps} steps (head ${d.left_head})`];
    if (d.reason === 'length_mismatch') {
        const longer = d.left_steps > d.right_steps ? l : r;
        return [
            ...status,
            `diverged at step ${d.seq}: length_mismatch (${l} has ${d.left_steps} steps, ${r} has ${d.right_steps})`,
            `  the first ${d.seq} steps are the same; ${longer} goes on`,
        ];
    }
    const what = [...d.fields_changed, ...d.hashes_changed.filter(() => d.fields_changed.length === 0)];
    const out = [
        ...status,
        `diverged at step ${d.seq}: ${what.join(', ')} ${what.length > 1 ? 'differ' : 'differs'}` +
            (d.left_line !== d.right_line
                ? ` (line ${d.left_line} of ${l}, line ${d.right_line} of ${r})`
                : ` (line ${d.left_line})`),
    ];
    const get = (v, k) => (v instanceof Map ? (v.get(k) ?? null) : null);
    for (const f of what) {
        out.push(`  ${f}:`);
        out.push(`    - ${truncate(preview(get(d.left, f)), 200)}`);
        out.push(`    + ${truncate(preview(get(d.right, f)), 200)}`);
    }
    const faultAt = (side, line) => {
        const f = side?.errors.find((e) => e.line === line && e.kind === 'step_hash_mismatch');
        return f === undefined ? '' : ' (stored: does not match the fields, step_hash_mismatch)';
    };
    out.push(`  left  ${l}: step_hash ${String(get(d.left, 'step_hash'))}${faultAt(sides?.left, d.left_line)}`);
    out.push(`  right ${r}: step_hash ${String(get(d.right, 'step_hash'))}${faultAt(sides?.right, d.right_line)}`);
    return out;
}

;// CONCATENATED MODULE: ./src/replay/index.ts
/**
 * The operator's replay surface (terminal half): a verified source,
 * the step model (fields, changes since the previous step, search), the layout
 * of a screen, and the non-interactive views. The TTY driver is `tty.ts`.
 */











;// CONCATENATED MODULE: ./src/cli/commands/diff.ts





const diffCommand = {
    name: ['diff'],
    usage: '<a> <b> [--root DIR] [--json] [--public-key FILE]...',
    summary: 'The first divergence between two runs (each an agent, dir, file or receipt): the step and the fields that differ, ' +
        'or a length mismatch, with each side verified. Exit 0 same and both verified, 1 otherwise.',
    description: 'A side that does not verify is compared all the same (what was edited in a tampered copy is the question), ' +
        'with its faults printed beside it. Steps are compared by their hashed fields and stored hashes, never by time.',
    options: { ...ROOT_OPTION, ...JSON_OPTION, 'public-key': PUBLIC_KEY_OPTION },
    examples: [
        { run: 'stepchain diff agent-1 fork-try-again-20261202-090414-f5aeff', what: 'where a fork went another way' },
        { run: 'stepchain diff original.jsonl suspicious.jsonl', what: 'what was edited in a copy' },
    ],
    exitCodes: {
        0: 'the same steps, both sides verified',
        1: 'diverged, or a side does not verify (or its signature was not checked)',
        2: 'usage or input error',
    },
    run(args, io) {
        const [a, b] = expectPositionals(args, ['a', 'b'], 'diff');
        const publicKeys = (args.lists.get('public-key') ?? []).map((f) => readPublicKeyFile(external_node_path_default().resolve(io.cwd, f)));
        const options = { root: rootOf(args, io), cwd: io.cwd, ...(publicKeys.length > 0 ? { publicKeys } : {}) };
        const left = openForDiff(a, options);
        const right = openForDiff(b, options);
        const d = diffJournals(left, right);
        const ok = !d.diverged && sideHolds(left) && sideHolds(right);
        if (args.flags.has('json')) {
            io.json({ ok, ...d, left_status: diffSideDocument(left), right_status: diffSideDocument(right) });
        }
        else {
            for (const line of diffLines(d, a, b, { left, right }))
                io.out(line);
        }
        return ok ? 0 : 1;
    },
};

;// CONCATENATED MODULE: ./src/cli/commands/receipt-target.ts







/** The options `export` and `publish` share. */
const RECEIPT_WRITE_OPTIONS = {
    ...ROOT_OPTION,
    ...JSON_OPTION,
    ...FORCE_OPTION,
    output: {
        kind: 'value',
        short: 'o',
        value: 'RECEIPT',
        description: 'The receipt to write (required; a .gz or .tgz name is gzipped). An existing file needs --force.',
    },
    'agent-id': {
        kind: 'value',
        value: 'ID',
        description: "The agent id in the manifest (default: the journal's directory name).",
    },
    'sign-key': {
        kind: 'value',
        value: 'FILE',
        description: 'Sign the manifest with this Ed25519 private key (PEM PKCS#8 or a raw 32-byte seed).',
    },
};
/** What `export` and `publish` read from their arguments: the journal, the output, the common write options. */
function receiptWriteTarget(args, io, command) {
    const [target] = expectPositionals(args, ['agent|dir|file'], command);
    const out = args.values.get('output');
    if (out === undefined)
        throw new errors_InputError(`${command}: missing -o RECEIPT`);
    const root = rootOf(args, io);
    const journal = resolveJournal(target, root);
    const outFile = external_node_path_default().resolve(io.cwd, out);
    if (outFile === external_node_path_default().resolve(journal.file))
        throw new errors_InputError(`${command}: the output would overwrite the journal`);
    refuseOverwrite(outFile, out, args, command);
    const options = {
        agentId: assertSafeId(args.values.get('agent-id') ?? journal.agentId, 'agent id'),
        audit: { root: projectRootOf(journal.dir) ?? root, env: io.env },
    };
    const key = args.values.get('sign-key');
    if (key !== undefined)
        options.signKey = readPrivateKeyFile(external_node_path_default().resolve(io.cwd, key));
    return { journal, out, outFile, options };
}

;// CONCATENATED MODULE: ./src/cli/commands/export.ts




const exportCommand = {
    name: ['export'],
    usage: '<agent|dir|file> -o RECEIPT [--force] [--root DIR] [--agent-id ID] [--sign-key FILE] [--cas DIR] [--json]',
    summary: 'Verify a journal, then write a portable receipt (tar; .gz/.tgz names are gzipped): manifest, optional Ed25519 signature, chain, blobs.',
    description: "The journal must verify first. Blobs come from the journal's project CAS (or --cas); a blob missing there is " +
        'named in the output and left out. Verify the receipt anywhere with `stepchain receipt verify`.',
    options: {
        ...RECEIPT_WRITE_OPTIONS,
        cas: { kind: 'value', value: 'DIR', description: "Read blobs from this CAS directory instead of the project's." },
    },
    examples: [
        { run: 'stepchain export agent-1 -o run.receipt.tar --sign-key stepchain.key', what: 'a signed receipt' },
        { run: 'stepchain export agent-1 -o run.receipt.tar --force', what: 'replace an earlier receipt' },
    ],
    exitCodes: {
        0: 'written',
        1: 'the journal does not verify (nothing written)',
        2: 'usage or input error (the output exists without --force, a bad key)',
    },
    run(args, io) {
        const { journal, out, outFile, options: common } = receiptWriteTarget(args, io, 'export');
        const options = { ...common };
        const cas = args.values.get('cas');
        if (cas !== undefined)
            options.cas = new Cas(external_node_path_default().resolve(io.cwd, cas), false);
        const r = exportReceipt(journal.file, outFile, options);
        for (const w of r.warnings)
            io.err(`stepchain: warning: ${w}`);
        if (args.flags.has('json')) {
            io.json({
                ok: true,
                receipt: outFile,
                agent_id: r.manifest.agent_id,
                head_hash: r.manifest.head_hash,
                steps: r.manifest.steps,
                signed: r.signed,
                key_id: r.key_id,
                blobs: r.blobs,
            });
            return 0;
        }
        io.out(`exported ${r.manifest.steps} step${r.manifest.steps === 1 ? '' : 's'} of ${r.manifest.agent_id} to ${out}`);
        io.out(`  head_hash ${r.manifest.head_hash}`);
        io.out(`  signed    ${r.signed ? `yes (key id ${r.key_id})` : 'no'}`);
        io.out(`  blobs     ${r.blobs.bundled.length} bundled, ${r.blobs.missing.length} missing from the CAS`);
        return 0;
    },
};

;// CONCATENATED MODULE: ./src/claude/cut.ts


function parseEntry(text) {
    try {
        const v = JSON.parse(text);
        return typeof v === 'object' && v !== null && !Array.isArray(v) ? v : undefined;
    }
    catch {
        return undefined;
    }
}
function blocks(entry) {
    const msg = entry.message;
    if (typeof msg !== 'object' || msg === null)
        return [];
    const content = msg.content;
    return Array.isArray(content) ? content.filter((b) => typeof b === 'object' && b !== null) : [];
}
function toolResultIds(entry) {
    if (entry.type !== 'user')
        return [];
    return blocks(entry)
        .filter((b) => b.type === 'tool_result' && typeof b.tool_use_id === 'string')
        .map((b) => b.tool_use_id);
}
function messageIdOf(entry) {
    if (entry.type !== 'assistant')
        return undefined;
    const msg = entry.message;
    const id = typeof msg === 'object' && msg !== null ? msg.id : undefined;
    return typeof id === 'string' ? id : undefined;
}
function toolUseIds(entry) {
    if (entry.type !== 'assistant')
        return [];
    return blocks(entry)
        .filter((b) => b.type === 'tool_use' && typeof b.id === 'string')
        .map((b) => b.id);
}
/**
 * Plans the copy of `transcript` (the bytes of `file`, session `sessionId`)
 * that ends right after the result of `toolUseId`, as session `newSessionId`.
 * Throws IntegrityError (exit 1) naming the file, the line and the reason.
 */
function cutTranscript(transcript, file, sessionId, toolUseId, newSessionId, laterToolUseIds = []) {
    const refuse = (why, line) => {
        throw new errors_IntegrityError(`${file}${line === undefined ? '' : `:${line}`}: ${why}; the conversation is not forked`);
    };
    let text = '';
    try {
        text = decodeUtf8(transcript);
    }
    catch {
        refuse('not valid UTF-8');
    }
    const raw = text.split('\n');
    const entries = [];
    const uuidLine = new Map();
    let cut = -1;
    const idNeedle = JSON.stringify(toolUseId);
    for (let i = 0; i < raw.length; i++) {
        const line = raw[i];
        if (cut >= 0) {
            // After the cut only a second result of the same call matters (a torn last line is fine).
            if (!line.includes(idNeedle))
                continue;
            const later = parseEntry(line);
            if (later !== undefined && later.isSidechain !== true && toolResultIds(later).includes(toolUseId))
                refuse(`the result of tool call ${toolUseId} appears twice (lines ${cut + 1} and ${i + 1})`, i + 1);
            continue;
        }
        if (line === '') {
            if (i === raw.length - 1)
                break;
            refuse('an empty line', i + 1);
        }
        const entry = parseEntry(line);
        if (entry === undefined)
            refuse('not a JSON object (Claude Code transcripts have one per line)', i + 1);
        const sid = entry.sessionId;
        if (sid !== undefined && sid !== sessionId)
            refuse(`belongs to session ${JSON.stringify(sid)}, not ${sessionId}`, i + 1);
        entries.push(entry);
        if (typeof entry.uuid === 'string')
            uuidLine.set(entry.uuid, i);
        if (toolResultIds(entry).includes(toolUseId)) {
            if (entry.isSidechain === true)
                refuse(`the result of tool call ${toolUseId} is in a sidechain (a subagent's conversation)`, i + 1);
            if (typeof entry.uuid !== 'string')
                refuse('the tool result entry has no uuid', i + 1);
            cut = i;
        }
    }
    if (cut < 0)
        refuse(`no result of tool call ${toolUseId} in this transcript (Claude Code writes it asynchronously: ` +
            'if the session is still running, try again once it has moved on)');
    // Walk the conversation chain back from the cut entry: every link must be in the copy.
    const onChain = [];
    const seen = new Set();
    for (let at = cut; at !== undefined;) {
        const entry = entries[at];
        const uuid = entry.uuid;
        if (uuid !== undefined) {
            if (seen.has(uuid))
                refuse(`the conversation chain loops at ${uuid}`, at + 1);
            seen.add(uuid);
        }
        onChain.push(at);
        const parent = entry.parentUuid;
        if (parent === null || parent === undefined)
            break;
        if (typeof parent !== 'string')
            refuse('a parentUuid is not a string', at + 1);
        const next = uuidLine.get(parent);
        if (next === undefined || next >= at)
            refuse(`the conversation chain is broken: parent ${String(parent)} is not an earlier line`, at + 1);
        at = next;
    }
    // Every tool call of the conversation so far needs its result in the copy. Parallel calls share one
    // assistant message (one message id, one entry per block) and each result hangs off its own call,
    // so the calls of every assistant message on the chain are checked, wherever their results are.
    const messageIds = new Set();
    for (const at of onChain) {
        const id = messageIdOf(entries[at]);
        if (id !== undefined)
            messageIds.add(id);
    }
    const results = new Set();
    const uses = [];
    for (let i = 0; i <= cut; i++) {
        const e = entries[i];
        if (e.isSidechain === true)
            continue;
        for (const id of toolResultIds(e))
            results.add(id);
        const mid = messageIdOf(e);
        if (onChain.includes(i) || (mid !== undefined && messageIds.has(mid)))
            for (const id of toolUseIds(e))
                uses.push({ id, line: i + 1 });
    }
    const open = uses.find((u) => !results.has(u.id));
    if (open !== undefined)
        refuse(`tool call ${open.id} (line ${open.line}) has no result before the cut: it ran in parallel with ${toolUseId}, ` +
            'and a conversation cut between their results cannot be continued', open.line);
    // The copy must not hold a result the journal records after the cut's step (parallel calls whose hooks ran in another order).
    for (const id of laterToolUseIds) {
        if (results.has(id))
            refuse(`the conversation before the cut already holds the result of ${id}, which the journal records after ${toolUseId} ` +
                '(parallel tool calls whose hooks ran in another order); fork at the later step instead');
    }
    const from = `"sessionId":${JSON.stringify(sessionId)}`;
    const to = `"sessionId":${JSON.stringify(newSessionId)}`;
    const out = [];
    for (let i = 0; i <= cut; i++) {
        const line = raw[i];
        if (entries[i].sessionId === undefined) {
            out.push(line);
            continue;
        }
        if (!line.includes(from))
            refuse('cannot rewrite its sessionId (not written the way Claude Code writes it)', i + 1);
        out.push(line.split(from).join(to));
    }
    const firstCwd = entries.find((e) => typeof e.cwd === 'string')?.cwd;
    const cutCwd = entries[cut].cwd;
    return {
        bytes: Buffer.from(`${out.join('\n')}\n`, 'utf8'),
        line: cut + 1,
        firstCwd,
        cutCwd: typeof cutCwd === 'string' ? cutCwd : undefined,
    };
}

;// CONCATENATED MODULE: ./src/claude/payload.ts




/** The per-step journal (and run journal) id of a Claude Code session. */
function claudeAgentId(sessionId) {
    return `claude-${sessionId}`;
}
function payload_str(obj, key) {
    const v = obj[key];
    return typeof v === 'string' ? v : undefined;
}
/** A string field of the payload, or undefined. */
function payload_field(p, key) {
    return payload_str(p.raw, key);
}
/** Any field of the payload (undefined when absent). */
function value(p, key) {
    return Object.prototype.hasOwnProperty.call(p.raw, key) ? p.raw[key] : undefined;
}
/** Parses and checks one hook payload. Throws InputError with one line naming what is wrong. */
function parseHookPayload(bytes, source = '<stdin>') {
    if (bytes.length === 0)
        throw new errors_InputError(`${source}: no hook payload (empty input)`);
    let v;
    try {
        v = parseBytes(bytes);
    }
    catch (e) {
        const why = e instanceof JsonParseError ? e.message : 'too large or too deeply nested';
        throw new errors_InputError(`${source}: hook payload is not JSON: ${why}`);
    }
    if (!isJsonObject(v))
        throw new errors_InputError(`${source}: hook payload is not a JSON object`);
    const event = payload_str(v, 'hook_event_name');
    if (event === undefined || event === '')
        throw new errors_InputError(`${source}: hook payload has no hook_event_name`);
    const sessionId = payload_str(v, 'session_id');
    if (sessionId === undefined || sessionId === '')
        throw new errors_InputError(`${source}: hook payload has no session_id`);
    // `claude-<session_id>` becomes a directory name and a git ref component.
    if (!isSafeId(claudeAgentId(sessionId)) || sessionId.startsWith('.') || sessionId.includes('..'))
        throw new errors_InputError(`${source}: unsafe session_id ${JSON.stringify(sessionId)}`);
    const cwd = payload_str(v, 'cwd');
    if (cwd === undefined || !external_node_path_default().isAbsolute(cwd) || cwd.includes('\0'))
        throw new errors_InputError(`${source}: hook payload has no absolute cwd`);
    const transcriptPath = payload_str(v, 'transcript_path');
    if (transcriptPath !== undefined && (!external_node_path_default().isAbsolute(transcriptPath) || transcriptPath.includes('\0')))
        throw new errors_InputError(`${source}: transcript_path is not an absolute path`);
    const promptId = payload_str(v, 'prompt_id');
    return {
        event,
        sessionId,
        transcriptPath,
        cwd: external_node_path_default().resolve(cwd),
        promptId: promptId === '' ? undefined : promptId,
        raw: v,
        bytes,
    };
}

;// CONCATENATED MODULE: ./src/runs/claude.ts


/** The adapter name recorded for Claude Code transcripts. */
const CLAUDE_ADAPTER = 'claude';
function envelopeFree(ev) {
    const out = {};
    for (const [k, v] of Object.entries(ev)) {
        if (k === 'type' || k === 'subtype' || k === 'session_id' || k === 'uuid' || k === 'parent_tool_use_id')
            continue;
        Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
    }
    return out;
}
/**
 * The mutation signals of one stream-json event, in order:
 * - `{"type":"system","subtype":"compact_boundary","compact_metadata":{...}}`
 *   and any other system event whose subtype ends in `_boundary`
 *   (e.g. `microcompact_boundary`): kind = the subtype, detail = its
 *   `<x>_metadata` object (the provider's report: `trigger`, `pre_tokens`, ...),
 *   else the event without its envelope (type, subtype, session_id, uuid);
 * - an assistant message whose `context_management.applied_edits` lists
 *   server-side context edits (e.g. cleared tool uses): one signal per edit,
 *   kind = the edit's `type`, detail = the edit.
 */
function signalsOf(ev, line) {
    const out = [];
    if (ev.type === 'system' && typeof ev.subtype === 'string' && ev.subtype.endsWith('_boundary')) {
        const meta = Object.entries(ev).find(([k, v]) => k.endsWith('_metadata') && isJsonObject(v));
        out.push({ kind: ev.subtype, detail: meta !== undefined ? meta[1] : envelopeFree(ev), line });
    }
    if (ev.type === 'assistant' && isJsonObject(ev.message)) {
        const cm = ev.message.context_management ?? ev.context_management;
        const edits = isJsonObject(cm) ? cm.applied_edits : undefined;
        if (Array.isArray(edits)) {
            for (const edit of edits) {
                if (!isJsonObject(edit))
                    continue;
                out.push({
                    kind: typeof edit.type === 'string' && edit.type !== '' ? edit.type : 'context_edit',
                    detail: edit,
                    line,
                });
            }
        }
    }
    return out;
}
/**
 * Reads a Claude Code `--output-format stream-json` transcript: one JSON object
 * per line with a string `type`. Blank lines are skipped; anything else that is
 * not such an object is an InputError naming the file and line (nothing is
 * recorded from a transcript that does not read whole).
 */
function readClaudeStream(bytes, source) {
    let text;
    try {
        text = decodeUtf8(bytes);
    }
    catch {
        throw new errors_InputError(`${source}: transcript is not valid UTF-8`);
    }
    const lines = text.split('\n');
    const result = { events: 0, assistantTurns: 0, sessionId: undefined, signals: [] };
    for (let i = 0; i < lines.length; i++) {
        const raw = lines[i].replace(/\r$/, '');
        if (raw.trim() === '')
            continue;
        let ev;
        try {
            ev = parse(raw);
        }
        catch (e) {
            const why = e instanceof JsonParseError ? e.message : 'too large or too deeply nested';
            throw new errors_InputError(`${source}:${i + 1}: not a stream-json event: ${why}`);
        }
        if (!isJsonObject(ev))
            throw new errors_InputError(`${source}:${i + 1}: not a stream-json event: not a JSON object`);
        if (typeof ev.type !== 'string')
            throw new errors_InputError(`${source}:${i + 1}: not a stream-json event: no string "type"`);
        result.events++;
        if (ev.type === 'assistant')
            result.assistantTurns++;
        if (result.sessionId === undefined && typeof ev.session_id === 'string')
            result.sessionId = ev.session_id;
        result.signals.push(...signalsOf(ev, i + 1));
    }
    if (result.events === 0)
        throw new errors_InputError(`${source}: transcript has no events`);
    return result;
}

;// CONCATENATED MODULE: ./src/runs/diff.ts




/** The payload keys whose values differ between two rows of the same event type (sorted). */
function payloadDiff(a, b) {
    const keys = new Set([...a.row.payload.keys(), ...b.row.payload.keys()]);
    const enc = (v) => (v === undefined ? undefined : encode_canonicalOfRead(v));
    return [...keys].filter((k) => enc(a.row.payload.get(k)) !== enc(b.row.payload.get(k))).sort();
}
function shown(v) {
    if (v === undefined)
        return 'absent';
    const t = encode_canonicalOfRead(v);
    return t.length > 80 ? `${t.slice(0, 79)}…` : t;
}
function mutationKind(e) {
    if (e === undefined || e.row.event !== MUTATION_EVENT)
        return undefined;
    const k = e.row.payload.get('mutation_kind');
    return typeof k === 'string' && k !== '' ? k : 'unknown';
}
function stepOf(e) {
    const s = e?.row.payload.get('step_index');
    return s === undefined ? '' : ` at step ${String(s)}`;
}
function load(file) {
    const r = readRunJournalFile(file);
    if (!r.chain_ok) {
        const f = r.errors[0];
        const e = new errors_IntegrityError(`${file}:${f.line}: ${f.kind}: ${f.message}; cannot diff a run journal whose chain does not verify`);
        e.details = r.errors.map((x) => ({ file, line: x.line, kind: x.kind, message: x.message }));
        throw e;
    }
    return r.entries;
}
/**
 * The first index at which two run journals diverge, comparing each row's
 * event type and payload hash (recomputed: never the timestamps, never a
 * stored hash taken on trust). A divergence where either side's row is a
 * provider-side mutation is attributed to it (`provider_state_mutation`, with
 * the kind and step); otherwise `response_mismatch`, or `length_mismatch` when
 * one run is a prefix of the other. Both chains must verify (a flagged
 * mutation is fine: that is what diff explains).
 */
function diffRuns(fileA, fileB) {
    const a = load(fileA);
    const b = load(fileB);
    const n = Math.min(a.length, b.length);
    const attribute = (i, code, reason) => {
        const ka = mutationKind(a[i]);
        const kb = mutationKind(b[i]);
        const kind = ka ?? kb;
        if (ka !== undefined && kb !== undefined) {
            // The same kind of mutation on both sides: say what differs, not "no counterpart".
            const fields = payloadDiff(a[i], b[i]);
            const what = fields
                .slice(0, 4)
                .map((f) => `${f} (${shown(a[i].row.payload.get(f))} in run A, ${shown(b[i].row.payload.get(f))} in run B)`)
                .join(', ');
            return {
                diverged: true,
                index: i,
                reason: `row ${i}: provider-side context mutation ${ka === kb ? ka : `${ka} vs ${kb}`} in both runs${stepOf(a[i])}, but ${fields.length === 1 ? `only ${what} differs` : `${what}${fields.length > 4 ? ', ...' : ''} differ`}`,
                reason_code: 'provider_state_mutation',
                mutation_kind: ka,
                fields_changed: fields,
            };
        }
        if (kind !== undefined) {
            const where = ka !== undefined ? 'run A' : 'run B';
            return {
                diverged: true,
                index: i,
                reason: `row ${i}: provider-side context mutation ${kind}${stepOf(ka !== undefined ? a[i] : b[i])} in ${where} has no counterpart in ${where === 'run A' ? 'run B' : 'run A'}`,
                reason_code: 'provider_state_mutation',
                mutation_kind: kind,
                fields_changed: [],
            };
        }
        const fields = i < n && a[i].row.event === b[i].row.event ? payloadDiff(a[i], b[i]) : [];
        return { diverged: true, index: i, reason, reason_code: code, mutation_kind: null, fields_changed: fields };
    };
    for (let i = 0; i < n; i++) {
        const ra = a[i].row;
        const rb = b[i].row;
        if (ra.event !== rb.event || ra.payload_hash !== rb.payload_hash) {
            const fields = ra.event === rb.event ? payloadDiff(a[i], b[i]) : [];
            const what = ra.event !== rb.event
                ? `event ${JSON.stringify(ra.event)} vs ${JSON.stringify(rb.event)}`
                : `${ra.event} payloads differ in ${fields.join(', ')}`;
            return attribute(i, 'response_mismatch', `row ${i}: ${what}`);
        }
    }
    if (a.length === b.length) {
        return {
            diverged: false,
            index: null,
            reason: `identical: ${a.length} rows match`,
            reason_code: null,
            mutation_kind: null,
            fields_changed: [],
        };
    }
    const longer = a.length > b.length ? 'A' : 'B';
    return attribute(n, 'length_mismatch', `run ${longer} has ${Math.abs(a.length - b.length)} more row(s) from index ${n}`);
}

;// CONCATENATED MODULE: ./src/runs/journal.ts









/** Faults that make a journal unsafe to extend. A flagged mutation is not one: it is policy, and the run keeps its record. */
const REFUSE = new Set([
    'malformed_json',
    'index_mismatch',
    'prev_hash_mismatch',
    'payload_hash_mismatch',
    'event_hash_mismatch',
    'content_address_mismatch',
    'bad_capability',
    'capability_conflict',
]);
/** Refusal to extend a run journal: names the file, line and remedy. Exit 1. */
class RunJournalRecoveryError extends errors_IntegrityError {
    name = 'RunJournalRecoveryError';
}
function journal_nowSeconds() {
    return (performance.timeOrigin + performance.now()) / 1000;
}
/** Python `round(x, 3)` for the display-only elapsed_s (not hashed). */
function round3(x) {
    return Math.round(x * 1000) / 1000;
}
/**
 * Validates an event type and payload for writing: the payload may not use
 * the envelope keys or `event`, and must have a JSON encoding (no NaN).
 */
function checkRunEvent(e) {
    if (typeof e.event !== 'string' || e.event === '')
        throw new errors_InputError('run journal: the event type must be a non-empty string');
    for (const k of e.payload.keys()) {
        if (RESERVED_PAYLOAD_KEYS.has(k))
            throw new errors_InputError(`run journal: payload key ${JSON.stringify(k)} is reserved (${[...RESERVED_PAYLOAD_KEYS].join(', ')})`);
    }
    try {
        canonical(e.payload);
    }
    catch (err) {
        if (err instanceof CanonicalEncodeError)
            throw new errors_InputError(`run journal: payload: ${err.message}`);
        throw err;
    }
}
/**
 * A run journal (`<root>/.sdd/runs/<run>/journal.jsonl`) opened for appending.
 * Every append takes the journal's lock and re-verifies the whole chain inside
 * it (fail-closed: a row that does not verify stops the append, naming its
 * line), moves a torn final line aside, then writes the new rows with one write.
 */
class RunJournal {
    file;
    lockFile;
    durable;
    options;
    constructor(file, options = {}) {
        this.file = file;
        this.lockFile = `${file}.lock`;
        this.durable = options.durable ?? true;
        this.options = options;
    }
    /**
     * Under the lock: recover and verify, let `plan` decide the events from the
     * verified state, append them. Returns the rows written (none when `plan`
     * returns none).
     */
    transact(plan) {
        (0,external_node_fs_namespaceObject.mkdirSync)(external_node_path_default().dirname(this.file), { recursive: true });
        const release = acquireLock(this.lockFile, this.options.lockTimeoutMs === undefined ? {} : { timeoutMs: this.options.lockTimeoutMs });
        try {
            const state = this.recover();
            const events = plan(state);
            for (const e of events)
                checkRunEvent(e);
            if (events.length === 0)
                return { rows: [], state };
            const rows = [];
            let prev = state.head;
            let index = state.count;
            const ts = (this.options.now ?? journal_nowSeconds)();
            if (!Number.isFinite(ts))
                throw new errors_InputError('run journal: ts must be a finite number');
            const start = state.startTs ?? ts;
            for (const e of events) {
                const payload_hash = computePayloadHash(e.event, e.payload);
                const event_hash = computeEventHash(prev, e.event, payload_hash, index);
                rows.push({
                    ts,
                    elapsed_s: round3(ts - start),
                    index,
                    event: e.event,
                    prev_hash: prev,
                    payload_hash,
                    event_hash,
                    payload: e.payload,
                });
                prev = event_hash;
                index++;
            }
            const data = Buffer.from(rows.map((r) => `${encodeRunRow(r)}\n`).join(''), 'utf8');
            appendDurably(this.file, data, this.durable);
            const after = { ...state, count: index, head: prev, startTs: start };
            return { rows, state: after };
        }
        finally {
            release();
        }
    }
    /** Appends events (validated) and returns their rows. */
    record(events) {
        return this.transact(() => events).rows;
    }
    /** The verified state, without writing (still fail-closed). */
    state() {
        return this.transact(() => []).state;
    }
    recover() {
        let buf;
        try {
            buf = (0,external_node_fs_namespaceObject.readFileSync)(this.file);
        }
        catch (e) {
            if (e.code === 'ENOENT')
                buf = Buffer.alloc(0);
            else
                throw new errors_InputError(`${this.file}: cannot read: ${e.code ?? e.message}`);
        }
        let validEnd = buf.length;
        let finishLine = false;
        if (buf.length > 0 && buf[buf.length - 1] !== 0x0a) {
            // A torn write, or a complete row whose newline never made it.
            const cut = buf.lastIndexOf(0x0a) + 1;
            const whole = readRunJournalBytes(buf);
            const lastLine = whole.entries.at(-1);
            const lineCount = buf.subarray(0, cut).toString('latin1').split('\n').length;
            const lastFaults = whole.errors.filter((f) => f.line === lineCount && REFUSE.has(f.kind));
            if (lastLine !== undefined && lastLine.line === lineCount && lastFaults.length === 0)
                finishLine = true;
            else
                validEnd = cut;
        }
        else if (buf.length > 0) {
            // A terminated last line that does not parse is a torn write too (nothing follows it).
            const start = buf.lastIndexOf(0x0a, buf.length - 2) + 1;
            if (readRunLine(buf.subarray(start, buf.length - 1)).kind === 'malformed')
                validEnd = start;
        }
        const valid = buf.subarray(0, validEnd);
        const r = readRunJournalBytes(valid);
        const bad = r.errors.find((f) => REFUSE.has(f.kind));
        if (bad !== undefined) {
            throw new RunJournalRecoveryError(`${describeRunFault(this.file, bad)}; refusing to append. Remedy: move the journal aside ` +
                `(mv ${this.file} ${this.file}.corrupt) so a fresh run can start, and keep it for \`stepchain run verify\``);
        }
        if (finishLine) {
            finishLastLine(this.file, buf.length, this.durable);
        }
        else if (validEnd < buf.length) {
            moveTornTailAside(this.file, validEnd, this.durable);
        }
        const capabilities = new Map();
        const mutationsByAgent = new Map();
        for (const { row } of r.entries) {
            if (row.event === CAPABILITY_EVENT) {
                const a = row.payload.get('adapter');
                const c = row.payload.get('capability');
                if (typeof a === 'string' && typeof c === 'string')
                    capabilities.set(a, c);
            }
            else if (row.event === MUTATION_EVENT) {
                const agent = row.payload.get('agent_id');
                const key = typeof agent === 'string' ? agent : '';
                mutationsByAgent.set(key, (mutationsByAgent.get(key) ?? 0) + 1);
            }
        }
        const first = r.entries[0]?.row.ts;
        return {
            count: r.count,
            head: r.count > 0 ? r.head_hash : RUN_GENESIS,
            startTs: first !== undefined && Number.isFinite(first) ? first : undefined,
            capabilities,
            mutationsByAgent,
        };
    }
}

;// CONCATENATED MODULE: ./src/runs/layout.ts




const RUN_JOURNAL_FILE = 'journal.jsonl';
function runsDir(root) {
    return external_node_path_default().join(root, '.sdd', 'runs');
}
/** `<root>/.sdd/runs/<run_id>/journal.jsonl` (the id is validated first). */
function runJournalFile(root, runId) {
    return external_node_path_default().join(runsDir(root), assertSafeId(runId, 'run id'), RUN_JOURNAL_FILE);
}
/**
 * `<run|dir|file>` on a command line: a run id is looked up under
 * `<root>/.sdd/runs/<id>/`; anything with a separator or ending in `.jsonl`
 * is a run directory or journal file. The journal must exist.
 */
function resolveRunJournal(target, root) {
    const looksLikePath = target.includes('/') || target.includes((external_node_path_default()).sep) || target.endsWith('.jsonl');
    if (!looksLikePath) {
        if (!isSafeId(target))
            assertSafeId(target, 'run id');
        const file = runJournalFile(root, target);
        if (pathKind(file) === 'file')
            return file;
        if (pathKind(target) === undefined)
            throw new errors_InputError(`no run journal for run ${JSON.stringify(target)} (looked for ${file})`);
    }
    const k = pathKind(target);
    if (k === 'dir') {
        const file = external_node_path_default().join(target, RUN_JOURNAL_FILE);
        if (pathKind(file) !== 'file')
            throw new errors_InputError(`${target}: no ${RUN_JOURNAL_FILE} in this directory`);
        return file;
    }
    if (k === 'file')
        return target;
    throw new errors_InputError(`${target}: no such run journal file or directory`);
}

;// CONCATENATED MODULE: ./src/runs/record.ts








function toPayload(data) {
    return data instanceof Map ? new Map(data) : new Map(Object.entries(data));
}
function journalFor(root, runId, options) {
    return new RunJournal(runJournalFile(root, runId), options);
}
/**
 * Records one event. Mutations and capabilities have their own functions
 * (content address, one capability per adapter), so their event types are
 * refused here.
 */
function recordRunEvent(root, runId, event, data, options) {
    if (event === MUTATION_EVENT || event === CAPABILITY_EVENT) {
        throw new errors_InputError(`run record: record ${event} entries with \`run ${event === MUTATION_EVENT ? 'mutation' : 'capability'}\``);
    }
    const input = { event, payload: toPayload(data) };
    checkRunEvent(input); // before anything is created
    const j = journalFor(root, runId, options);
    const [row] = j.record([input]);
    return { row: row, file: j.file };
}
function checkCapability(capability) {
    if (!CAPABILITIES.includes(capability)) {
        throw new errors_InputError(`capability must be observed or declared-blind, got ${JSON.stringify(capability)}`);
    }
    return capability;
}
/** The capability event to add for `adapter`, or none when it is already recorded the same; refuses a different one. */
function capabilityPlan(existing, adapter, capability, file) {
    const have = existing.get(adapter);
    if (have === capability)
        return [];
    if (have !== undefined) {
        throw new errors_IntegrityError(`${file}: adapter ${JSON.stringify(adapter)} is already recorded as ${have} for this run; one capability per adapter per run`);
    }
    return [{ event: CAPABILITY_EVENT, payload: capabilityPayload(adapter, capability) }];
}
/**
 * Records an adapter's mutation-observability capability: one per adapter per
 * run. The same capability again is a no-op (`row` undefined); a different
 * one is refused (IntegrityError).
 */
function recordCapability(root, runId, adapter, capability, options) {
    if (typeof adapter !== 'string' || adapter === '')
        throw new errors_InputError('capability: the adapter name is empty');
    const cap = checkCapability(capability);
    const j = journalFor(root, runId, options);
    const { rows } = j.transact((s) => capabilityPlan(s.capabilities, adapter, cap, j.file));
    return { row: rows[0], file: j.file };
}
function mirror(root, runId, records, options) {
    const warnings = [];
    for (const r of records) {
        const w = auditEvent(root, 'provider.state_mutation', {
            actor: String(r.row.payload.get('agent_id')),
            resource_type: 'run',
            resource_id: runId,
            details: {
                run: runId,
                agent: String(r.row.payload.get('agent_id')),
                kind: r.mutation.kind,
                content_address: r.content_address,
                step_index: r.mutation.step_index,
                flagged: r.mutation.flagged,
                journal_head: r.row.event_hash,
            },
        }, options.keyPath === undefined ? { env: options.env } : { env: options.env, keyPath: options.keyPath });
        if (w !== undefined)
            warnings.push(w);
    }
    return warnings;
}
function toRecords(rows, mutations) {
    const mrows = rows.filter((r) => r.event === MUTATION_EVENT);
    return mrows.map((row, i) => ({
        row,
        mutation: mutations[i],
        content_address: String(row.payload.get('content_address')),
    }));
}
/**
 * Chains one provider-side mutation into the run journal as a
 * content-addressed `provider_state_mutation` entry (flagged when a
 * deterministic mode is set in `options.env`), then mirrors it into the audit
 * chain as `provider.state_mutation` (best-effort: a failure is a warning).
 */
function recordMutation(root, runId, input, options) {
    assertSafeId(input.agentId, 'agent id');
    if (typeof input.kind !== 'string' || input.kind === '')
        throw new errors_InputError('mutation: the kind is empty');
    if (input.stepIndex !== undefined && (!isJsonInteger(input.stepIndex) || input.stepIndex < 0)) {
        throw new errors_InputError('mutation: step index must be a non-negative integer');
    }
    const det = deterministicModeVar(options.env);
    const j = journalFor(root, runId, options);
    const made = [];
    const { rows } = j.transact((s) => {
        const step = input.stepIndex ?? s.mutationsByAgent.get(input.agentId) ?? 0;
        const m = mutationFromSignal(input.kind, input.detail ?? {}, step, det !== undefined);
        made.push(m);
        return [{ event: MUTATION_EVENT, payload: mutationPayload(m, input.agentId) }];
    });
    const mutations = toRecords(rows, made);
    return { file: j.file, mutations, deterministic: det, warnings: mirror(root, runId, mutations, options) };
}
/**
 * Records what an adapter that can see provider-side mutations observed, in
 * one locked append: the adapter's `observed` capability first (once per run;
 * a run that declared it blind refuses), then the items in order, each signal
 * chained as a content-addressed mutation of `agentId` whose step index
 * continues the agent's ordinal in the run. Mutations are mirrored into the
 * audit chain. Nothing is written when an item cannot be.
 */
function recordObserved(root, runId, adapter, agentId, items, options) {
    assertSafeId(agentId, 'agent id');
    for (const it of items) {
        if ('event' in it) {
            if (it.event.event === MUTATION_EVENT || it.event.event === CAPABILITY_EVENT)
                throw new errors_InputError(`run journal: ${it.event.event} entries are recorded as signals or capabilities`);
            checkRunEvent(it.event);
        }
        else if (typeof it.signal.kind !== 'string' || it.signal.kind === '') {
            throw new errors_InputError('mutation: the kind is empty');
        }
    }
    const det = deterministicModeVar(options.env);
    const j = journalFor(root, runId, options);
    const made = [];
    const { rows } = j.transact((s) => {
        made.length = 0;
        const events = capabilityPlan(s.capabilities, adapter, 'observed', j.file);
        let step = s.mutationsByAgent.get(agentId) ?? 0;
        for (const it of items) {
            if ('event' in it) {
                events.push(it.event);
                continue;
            }
            const m = mutationFromSignal(it.signal.kind, it.signal.detail, step++, det !== undefined);
            made.push(m);
            events.push({ event: MUTATION_EVENT, payload: mutationPayload(m, agentId) });
        }
        return events;
    });
    const mutations = toRecords(rows, made);
    const result = {
        file: j.file,
        rows,
        mutations,
        deterministic: det,
        warnings: mirror(root, runId, mutations, options),
    };
    const capabilityRow = rows.find((r) => r.event === CAPABILITY_EVENT);
    if (capabilityRow !== undefined)
        result.capabilityRow = capabilityRow;
    return result;
}
/**
 * Ingests a Claude Code stream-json transcript for one agent: records the
 * `claude` adapter as `observed` (once per run) and chains every
 * context-mutation signal in transcript order, all in one append. Step indices
 * continue the agent's ordinal in the run (0, 1, ... for its first session).
 * A transcript that does not read whole is refused before anything is written.
 */
function ingestClaudeStream(root, runId, agentId, bytes, source, options) {
    assertSafeId(agentId, 'agent id');
    const transcript = readClaudeStream(bytes, source);
    const r = recordObserved(root, runId, CLAUDE_ADAPTER, agentId, transcript.signals.map((s) => ({ signal: s })), options);
    const result = {
        file: r.file,
        mutations: r.mutations,
        deterministic: r.deterministic,
        warnings: r.warnings,
        transcript,
    };
    if (r.capabilityRow !== undefined)
        result.capabilityRow = r.capabilityRow;
    return result;
}

;// CONCATENATED MODULE: ./src/runs/index.ts









;// CONCATENATED MODULE: ./src/claude/root.ts

/**
 * The project root a hook records into, discovered from the payload's `cwd` as
 * every command discovers its project (src/project.ts): the nearest directory
 * holding `.sdd/`, else the git work tree's top, else cwd itself. So a session
 * started in a fork's worktree records into the fork, and a subdirectory of a
 * project records into the project.
 */
function claudeProjectRoot(cwd) {
    return findProjectRoot(cwd).root;
}

;// CONCATENATED MODULE: ./src/claude/state.ts







const EMPTY_STATE = { prompt_id: null, prompt: null, compaction_pending: false };
function claudeStateDir(root) {
    return external_node_path_default().join(runtimeDir(root), 'claude');
}
function sessionStateFile(root, sessionId) {
    return external_node_path_default().join(claudeStateDir(root), `${assertSafeId(sessionId, 'session id')}.json`);
}
/** Refuses a symlink anywhere between the root and the state directory (never written through). */
function realDirs(root, dir) {
    const rel = external_node_path_default().relative(root, dir).split((external_node_path_default()).sep);
    let p = root;
    for (const part of rel) {
        p = external_node_path_default().join(p, part);
        let st;
        try {
            st = (0,external_node_fs_namespaceObject.lstatSync)(p);
        }
        catch {
            return; // created below, as a real directory
        }
        if (!st.isDirectory())
            throw new errors_IntegrityError(`${p}: not a directory (a symlink is never followed)`);
    }
}
/** The session's state; the empty state when there is none or it does not read (a cache: never fatal). */
function readSessionState(root, sessionId) {
    const file = sessionStateFile(root, sessionId);
    let bytes;
    try {
        if ((0,external_node_fs_namespaceObject.lstatSync)(file).isSymbolicLink())
            return { state: EMPTY_STATE, warning: `${file}: a symlink; ignored` };
        bytes = (0,external_node_fs_namespaceObject.readFileSync)(file);
    }
    catch {
        return { state: EMPTY_STATE };
    }
    let v;
    try {
        v = parseBytes(bytes);
    }
    catch {
        return { state: EMPTY_STATE, warning: `${file}: not JSON; ignored` };
    }
    if (!isJsonObject(v))
        return { state: EMPTY_STATE, warning: `${file}: not a JSON object; ignored` };
    return {
        state: {
            prompt_id: typeof v.prompt_id === 'string' ? v.prompt_id : null,
            prompt: typeof v.prompt === 'string' ? v.prompt : null,
            compaction_pending: v.compaction_pending === true,
        },
    };
}
/** Replaces the session's state (write to a fresh temporary name, then rename). */
function writeSessionState(root, sessionId, state) {
    const file = sessionStateFile(root, sessionId);
    const dir = external_node_path_default().dirname(file);
    realDirs(root, dir);
    (0,external_node_fs_namespaceObject.mkdirSync)(dir, { recursive: true });
    const doc = {
        session_id: sessionId,
        prompt_id: state.prompt_id,
        prompt: state.prompt,
        compaction_pending: state.compaction_pending,
    };
    const tmp = `${file}.${process.pid}.${(0,external_node_crypto_namespaceObject.randomBytes)(4).toString('hex')}.tmp`;
    try {
        (0,external_node_fs_namespaceObject.writeFileSync)(tmp, `${encode(doc)}\n`, { flag: 'wx', mode: 0o644 });
        (0,external_node_fs_namespaceObject.renameSync)(tmp, file);
    }
    catch (e) {
        (0,external_node_fs_namespaceObject.rmSync)(tmp, { force: true });
        throw e;
    }
}

;// CONCATENATED MODULE: ./src/claude/hook.ts








/** The events stepchain records; `init claude` installs a hook for each. */
const RECORDED_EVENTS = [
    'SessionStart',
    'UserPromptSubmit',
    'PostToolUse',
    'PostToolUseFailure',
    'PreCompact',
    'Stop',
    'SessionEnd',
];
function hook_message(e) {
    if (e instanceof errors_StepchainError)
        return e.message;
    const m = e instanceof Error ? e.message : String(e);
    return m.split('\n')[0] ?? m;
}
function strOrNull(v) {
    return typeof v === 'string' ? v : null;
}
function hook_payloadOf(entries) {
    return new Map(entries);
}
/** The journal step of a tool call (docs/claude.md "What a step holds"). */
function toolStep(p, state) {
    const call = {
        id: strOrNull(value(p, 'tool_use_id')),
        input: value(p, 'tool_input') ?? null,
        name: strOrNull(value(p, 'tool_name')),
    };
    let result;
    if (p.event === 'PostToolUseFailure') {
        const failure = { error: value(p, 'error') ?? null };
        const interrupt = value(p, 'is_interrupt');
        if (typeof interrupt === 'boolean')
            failure.is_interrupt = interrupt;
        result = failure;
    }
    else {
        result = value(p, 'tool_response') ?? null;
    }
    // The prompt in progress, when the state names the same prompt (a payload without prompt_id takes the latest).
    const prompt = state.prompt !== null && (p.promptId === undefined || state.prompt_id === p.promptId) ? state.prompt : null;
    const toolUseId = payload_field(p, 'tool_use_id');
    const model = p.transcriptPath !== undefined && toolUseId !== undefined ? modelOfToolUse(p.transcriptPath, toolUseId) : undefined;
    return { input: p.bytes, tool_call: call, tool_result: result, prompt, model: model ?? null };
}
/** Handles one payload. Never throws. */
function handleClaudeHook(bytes, options) {
    const out = {
        event: undefined,
        root: undefined,
        agent: undefined,
        recorded: [],
        warnings: [],
        errors: [],
    };
    let p;
    try {
        p = parseHookPayload(bytes);
    }
    catch (e) {
        out.errors.push(hook_message(e));
        return out;
    }
    out.event = p.event;
    const root = options.root ?? claudeProjectRoot(p.cwd);
    const agent = claudeAgentId(p.sessionId);
    out.root = root;
    out.agent = agent;
    try {
        handle(p, root, agent, options, out);
    }
    catch (e) {
        out.errors.push(`${p.event}: ${hook_message(e)}`);
    }
    return out;
}
function handle(p, root, agent, options, out) {
    const env = options.env;
    const state = () => {
        const r = readSessionState(root, p.sessionId);
        if (r.warning !== undefined)
            out.warnings.push(r.warning);
        return r.state;
    };
    const saveState = (s) => {
        try {
            writeSessionState(root, p.sessionId, s);
        }
        catch (e) {
            out.warnings.push(`session state not saved: ${hook_message(e)}`);
        }
    };
    const run = (items, what) => {
        try {
            const r = recordObserved(root, agent, CLAUDE_ADAPTER, agent, items, { env });
            out.warnings.push(...r.warnings);
            if (r.deterministic !== undefined && r.mutations.length > 0)
                out.warnings.push(`${r.deterministic} is set: the compaction was recorded flagged (run verify fails)`);
            out.recorded.push(what);
            return true;
        }
        catch (e) {
            out.errors.push(`${what} not recorded in the run journal ${agent}: ${hook_message(e)}`);
            return false;
        }
    };
    const event = (name, entries) => ({
        event: { event: name, payload: hook_payloadOf(entries) },
    });
    switch (p.event) {
        case 'PostToolUse':
        case 'PostToolUseFailure': {
            const step = toolStep(p, state());
            try {
                const r = recordStep(journalDir(root, agent), step, {
                    root,
                    env,
                    ...(options.snapshot === false ? { snapshot: false } : {}),
                });
                out.row = r.row;
                out.warnings.push(...r.warnings);
                out.recorded.push(`step ${r.row.seq}`);
            }
            catch (e) {
                // The step is lost from the journal; its payload is kept where the operator can find it.
                let kept = '';
                try {
                    kept = `; its payload is kept as ${new Cas(casDir(root)).put(p.bytes)} in ${casDir(root)}`;
                }
                catch {
                    /* nothing more can be kept */
                }
                out.errors.push(`step not recorded in ${agent}: ${hook_message(e)}${kept}`);
            }
            return;
        }
        case 'UserPromptSubmit': {
            const prompt = strOrNull(value(p, 'prompt'));
            saveState({ ...state(), prompt_id: p.promptId ?? null, prompt });
            run([
                event('prompt', [
                    ['prompt_id', p.promptId ?? null],
                    ['prompt', prompt],
                ]),
            ], 'run event prompt');
            return;
        }
        case 'SessionStart': {
            const source = strOrNull(value(p, 'source'));
            const s = state();
            const items = [];
            // A compaction PreCompact did not record (its hook missing or failed) is chained here, trigger unknown.
            if (source === 'compact' && !s.compaction_pending)
                items.push({ signal: { kind: 'compact_boundary', detail: {} } });
            const model = value(p, 'model');
            items.push(event('session_start', [
                ['source', source],
                ...(typeof model === 'string' ? [['model', model]] : []),
            ]));
            if (run(items, source === 'compact' && !s.compaction_pending
                ? 'compaction and run event session_start'
                : 'run event session_start') &&
                source === 'compact')
                saveState({ ...s, compaction_pending: false });
            return;
        }
        case 'PreCompact': {
            const trigger = value(p, 'trigger');
            const detail = typeof trigger === 'string' ? { trigger } : {};
            if (run([{ signal: { kind: 'compact_boundary', detail } }], 'compaction'))
                saveState({ ...state(), compaction_pending: true });
            return;
        }
        case 'Stop':
            run([
                event('stop', [
                    ['prompt_id', p.promptId ?? null],
                    ['last_assistant_message', strOrNull(value(p, 'last_assistant_message'))],
                ]),
            ], 'run event stop');
            return;
        case 'SessionEnd':
            run([event('session_end', [['reason', strOrNull(value(p, 'reason'))]])], 'run event session_end');
            return;
        default:
            // Other events (PreToolUse, Notification, ...) carry nothing stepchain records.
            return;
    }
}

;// CONCATENATED MODULE: ./src/claude/line-diff.ts
/**
 * A unified diff of two small texts (a settings file before and after), for
 * showing a person what changed: `-`/`+` lines with a few lines of context in
 * `@@` hunks. Longest common subsequence over lines; texts past `MAX_LINES`
 * are summarised instead (settings files are small).
 */
const MAX_LINES = 4000;
function ops(a, b) {
    const n = a.length;
    const m = b.length;
    // lcs[i][j] = LCS length of a[i..] and b[j..], in one flat array.
    const w = m + 1;
    const lcs = new Uint32Array((n + 1) * w);
    for (let i = n - 1; i >= 0; i--) {
        for (let j = m - 1; j >= 0; j--) {
            lcs[i * w + j] =
                a[i] === b[j] ? lcs[(i + 1) * w + j + 1] + 1 : Math.max(lcs[(i + 1) * w + j], lcs[i * w + j + 1]);
        }
    }
    const out = [];
    let i = 0;
    let j = 0;
    while (i < n || j < m) {
        if (i < n && j < m && a[i] === b[j]) {
            out.push({ kind: ' ', text: a[i], a: i, b: j });
            i++;
            j++;
        }
        else if (j < m && (i === n || lcs[i * w + j + 1] >= lcs[(i + 1) * w + j])) {
            out.push({ kind: '+', text: b[j], a: i, b: j });
            j++;
        }
        else {
            out.push({ kind: '-', text: a[i], a: i, b: j });
            i++;
        }
    }
    return out;
}
function split(text) {
    if (text === '')
        return [];
    const lines = text.split('\n');
    if (lines.at(-1) === '')
        lines.pop();
    return lines;
}
/** The diff lines (without a trailing newline each); empty when the texts are equal. */
function unifiedDiff(before, after, nameA, nameB, context = 3) {
    if (before === after)
        return [];
    const a = split(before);
    const b = split(after);
    const head = [`--- ${nameA}`, `+++ ${nameB}`];
    if (a.length > MAX_LINES || b.length > MAX_LINES)
        return [...head, `(${a.length} lines before, ${b.length} after)`];
    const all = ops(a, b);
    const out = [...head];
    let k = 0;
    while (k < all.length) {
        if (all[k].kind === ' ') {
            k++;
            continue;
        }
        // A hunk: from `context` lines before this change to `context` lines after the last change close to it.
        const start = Math.max(0, k - context);
        let end = k;
        for (let q = k; q < all.length; q++) {
            if (all[q].kind !== ' ')
                end = q;
            else if (q - end > 2 * context)
                break;
        }
        const stop = Math.min(all.length, end + context + 1);
        const slice = all.slice(start, stop);
        const aStart = slice[0].a;
        const bStart = slice[0].b;
        const aLen = slice.filter((o) => o.kind !== '+').length;
        const bLen = slice.filter((o) => o.kind !== '-').length;
        out.push(`@@ -${aLen === 0 ? aStart : aStart + 1},${aLen} +${bLen === 0 ? bStart : bStart + 1},${bLen} @@`);
        for (const o of slice)
            out.push(`${o.kind}${o.text}`);
        k = stop;
    }
    return out;
}

;// CONCATENATED MODULE: ./src/claude/settings.ts







/**
 * `stepchain init claude`: merges stepchain's hook entries into a Claude Code
 * settings file (default `<root>/.claude/settings.json`), or removes them.
 * Every other key, hook and matcher group is kept as it was (order included);
 * running it twice changes nothing the second time. The Claude Code schema:
 *
 *   {"hooks": {"PostToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": "..."}]}], ...}}
 *
 * A file that does not have that shape is refused (exit 2), never rewritten
 * into it; a symlinked settings file or `.claude` directory is refused too.
 */
const DEFAULT_HOOK_COMMAND = 'stepchain hook claude';
/** Tool events take a tool-name matcher; the others match every occurrence without one. */
const MATCHER = { PostToolUse: '*', PostToolUseFailure: '*' };
/** Whether a hook command runs `stepchain hook claude` (by name or through the bundle). */
function isStepchainHookCommand(command) {
    return /(?:^|[\s/'"=])(?:stepchain|cli\.js)['"]?\s+hook\s+claude(?:\s|$)/.test(command);
}
function settings_isObj(v) {
    return v instanceof Map;
}
/** JSON with `indent` spaces per level, keys in their order, numbers exactly as read, non-ASCII kept. */
function stringifyIndented(v, indent, level = '') {
    const inner = level + indent;
    if (Array.isArray(v)) {
        if (v.length === 0)
            return '[]';
        return `[\n${v.map((x) => inner + stringifyIndented(x, indent, inner)).join(',\n')}\n${level}]`;
    }
    if (v instanceof Map) {
        if (v.size === 0)
            return '{}';
        const items = [...v].map(([k, x]) => `${inner}${JSON.stringify(k)}: ${stringifyIndented(x, indent, inner)}`);
        return `{\n${items.join(',\n')}\n${level}}`;
    }
    if (typeof v === 'string')
        return JSON.stringify(v);
    if (v !== null && typeof v === 'object' && !(v instanceof JsonFloat)) {
        return stringifyIndented(new Map(Object.entries(v)), indent, level);
    }
    return encode(v, { allowNonFinite: true });
}
function lineOf(text, column) {
    let line = 1;
    for (let i = 0; i < column - 1 && i < text.length; i++)
        if (text.charCodeAt(i) === 10)
            line++;
    return line;
}
function refuseSymlink(p) {
    try {
        if ((0,external_node_fs_namespaceObject.lstatSync)(p).isSymbolicLink())
            throw new errors_IntegrityError(`${p}: is a symlink; refusing to follow it`);
    }
    catch (e) {
        if (e instanceof errors_IntegrityError)
            throw e;
    }
}
function readSettings(file) {
    refuseSymlink(external_node_path_default().dirname(file));
    refuseSymlink(file);
    let bytes;
    try {
        bytes = (0,external_node_fs_namespaceObject.readFileSync)(file);
    }
    catch (e) {
        const code = e.code;
        if (code === 'ENOENT')
            return { text: null, doc: new Map() };
        throw new errors_InputError(`${file}: cannot read settings: ${code ?? e.message}`);
    }
    let text;
    try {
        text = decodeUtf8(bytes);
    }
    catch {
        throw new errors_InputError(`${file}: settings file is not valid UTF-8`);
    }
    if (text.trim() === '')
        return { text, doc: new Map() };
    let v;
    try {
        v = parse(text, { objects: 'map' });
    }
    catch (e) {
        if (e instanceof JsonParseError)
            throw new errors_InputError(`${file}:${lineOf(text, e.column)}: not JSON: ${e.reason}`);
        throw new errors_InputError(`${file}: not JSON: too large or too deeply nested`);
    }
    if (!settings_isObj(v))
        throw new errors_InputError(`${file}: settings file is not a JSON object`);
    return { text, doc: v };
}
/** The indentation the file already uses (two spaces when it has none). */
function indentOf(text) {
    const m = text === null ? null : /\n([ \t]+)\S/.exec(text);
    return m?.[1] ?? '  ';
}
/** What `init claude` would do to `file` (nothing is written). */
function planClaudeSettings(file, options = {}) {
    const command = options.command ?? DEFAULT_HOOK_COMMAND;
    if (!isStepchainHookCommand(command))
        throw new errors_InputError(`--command ${JSON.stringify(command)} does not run \`stepchain hook claude\``);
    const { text, doc } = readSettings(file);
    const shape = (what) => {
        throw new errors_InputError(`${file}: ${what}; not the Claude Code hook settings format, so it is left as it is`);
    };
    let hooks = doc.get('hooks');
    if (hooks !== undefined && !settings_isObj(hooks))
        shape('"hooks" is not an object');
    const events = [];
    const updated = [];
    if (hooks === undefined && !options.remove) {
        hooks = new Map();
        doc.set('hooks', hooks);
    }
    for (const event of RECORDED_EVENTS) {
        if (hooks === undefined)
            break;
        const h = hooks;
        const groups = h.get(event);
        if (groups !== undefined && !Array.isArray(groups))
            shape(`"hooks.${event}" is not a list`);
        const list = (groups ?? []);
        let ours = 0;
        for (const g of list) {
            if (!settings_isObj(g))
                shape(`an entry of "hooks.${event}" is not an object`);
            const entries = g.get('hooks');
            if (!Array.isArray(entries))
                shape(`an entry of "hooks.${event}" has no "hooks" list`);
            for (const e of entries) {
                if (!settings_isObj(e))
                    shape(`a hook of "hooks.${event}" is not an object`);
                const c = e.get('command');
                if (e.get('type') === 'command' && typeof c === 'string' && isStepchainHookCommand(c)) {
                    ours++;
                    if (!options.remove && options.command !== undefined && c !== command) {
                        e.set('command', command);
                        updated.push(event);
                    }
                }
            }
        }
        if (options.remove) {
            if (ours === 0)
                continue;
            const kept = [];
            for (const g of list) {
                const entries = g.get('hooks');
                const rest = entries.filter((e) => {
                    const c = e.get('command');
                    return !(e.get('type') === 'command' && typeof c === 'string' && isStepchainHookCommand(c));
                });
                if (rest.length === entries.length)
                    kept.push(g);
                else if (rest.length > 0) {
                    g.set('hooks', rest);
                    kept.push(g);
                }
            }
            if (kept.length > 0)
                h.set(event, kept);
            else
                h.delete(event);
            events.push(event);
        }
        else if (ours === 0) {
            const group = new Map();
            const matcher = MATCHER[event];
            if (matcher !== undefined)
                group.set('matcher', matcher);
            group.set('hooks', [
                new Map([
                    ['type', 'command'],
                    ['command', command],
                ]),
            ]);
            h.set(event, [...list, group]);
            events.push(event);
        }
    }
    if (options.remove && settings_isObj(hooks) && hooks.size === 0 && events.length > 0)
        doc.delete('hooks');
    const changed = events.length > 0 || updated.length > 0;
    const after = changed ? `${stringifyIndented(doc, indentOf(text))}\n` : (text ?? '');
    return {
        file,
        before: text,
        after,
        changed,
        events,
        updated,
        diff: changed ? unifiedDiff(text ?? '', after, text === null ? '/dev/null' : file, file) : [],
    };
}
/** Writes a plan's new text (atomically: a temporary file in the same directory, then a rename). */
function writeClaudeSettings(plan) {
    if (!plan.changed)
        return;
    const dir = external_node_path_default().dirname(plan.file);
    refuseSymlink(dir);
    refuseSymlink(plan.file);
    (0,external_node_fs_namespaceObject.mkdirSync)(dir, { recursive: true });
    let mode = 0o644;
    try {
        mode = (0,external_node_fs_namespaceObject.lstatSync)(plan.file).mode & 0o777;
    }
    catch {
        /* a new file */
    }
    // The file must still be what the plan read: a concurrent edit is not overwritten.
    let now;
    try {
        now = (0,external_node_fs_namespaceObject.readFileSync)(plan.file, 'utf8');
    }
    catch {
        now = null;
    }
    if (now !== plan.before)
        throw new errors_IntegrityError(`${plan.file}: changed while it was being updated; run it again`);
    const tmp = external_node_path_default().join(dir, `.${external_node_path_default().basename(plan.file)}.${process.pid}.${(0,external_node_crypto_namespaceObject.randomBytes)(4).toString('hex')}.tmp`);
    try {
        (0,external_node_fs_namespaceObject.writeFileSync)(tmp, plan.after, { flag: 'wx', mode });
        (0,external_node_fs_namespaceObject.renameSync)(tmp, plan.file);
    }
    catch (e) {
        (0,external_node_fs_namespaceObject.rmSync)(tmp, { force: true });
        throw new errors_InputError(`${plan.file}: cannot write: ${e.code ?? e.message}`);
    }
}

;// CONCATENATED MODULE: ./src/claude/resume.ts















/** A path as one shell word, safe to paste (no control characters reach the terminal raw). */
function shellWord(s) {
    if (/^[A-Za-z0-9_/.,:@%+=-]+$/.test(s))
        return s;
    if (/^[\x20-\x7e]*$/.test(s))
        return `'${s.replace(/'/g, `'\\''`)}'`;
    let out = "$'";
    for (const ch of s) {
        const c = ch.codePointAt(0);
        if (ch === "'" || ch === '\\')
            out += `\\${ch}`;
        else if (c < 0x20 || c === 0x7f || (c >= 0x80 && c < 0xa0))
            out += `\\x${c.toString(16).padStart(2, '0')}`;
        else
            out += ch;
    }
    return `${out}'`;
}
/** The command that resumes the fork's conversation. */
function resumeCommand(plan) {
    const env = plan.configDir === undefined ? '' : `CLAUDE_CONFIG_DIR=${shellWord(plan.configDir)} `;
    return `cd ${shellWord(plan.cwd)} && ${env}claude --resume ${plan.sessionId}`;
}
/** The step's raw hook payload, from the CAS of the root or of the projects it was forked from. */
function payloadBlob(root, agent, digest, step) {
    const tried = [];
    let dir = root;
    let id = agent;
    for (let depth = 0; dir !== undefined && depth < 32; depth++) {
        const cas = casDir(dir);
        tried.push(cas);
        const bytes = new Cas(cas).get(digest);
        if (bytes !== undefined && sha256Hex(bytes) === digest)
            return bytes;
        // A fork's prefix came from its parent, whose blobs stay in the parent's project.
        const session = readSessionFile(sessionFile(dir, id));
        const fork = session?.fork;
        if (!isJsonObject(fork) || typeof fork.parent_root !== 'string' || typeof fork.parent_session_id !== 'string')
            break;
        dir = fork.parent_root;
        id = fork.parent_session_id;
    }
    throw new errors_IntegrityError(`step ${step} has no stored hook payload (input ${digest} is not in ${tried.join(' or ')}); ` +
        'only steps recorded by `stepchain hook claude` can resume a conversation');
}
function configDirOf(env) {
    return external_node_path_default().resolve(env.CLAUDE_CONFIG_DIR || external_node_path_default().join(env.HOME || (0,external_node_os_namespaceObject.homedir)(), '.claude'));
}
/** Plans the resume of `agent`'s conversation after step `fromStep`. Throws with the reason when it cannot be done safely. */
function planClaudeResume(options) {
    const root = external_node_path_default().resolve(options.root);
    const file = journalFile(root, options.agent);
    if (!(0,external_node_fs_namespaceObject.existsSync)(file))
        throw new errors_InputError(`no journal for ${JSON.stringify(options.agent)} (looked for ${file})`);
    const journal = readVerifiedJournal(file);
    if (!Number.isSafeInteger(options.fromStep) || options.fromStep < 0 || options.fromStep >= journal.steps)
        throw new errors_InputError(`${file}: step ${options.fromStep} is out of range (the journal has ${journal.steps} step${journal.steps === 1 ? '' : 's'})`);
    const row = journal.entries[options.fromStep].row;
    // Tool calls the journal records after step N: their results must not be in the copy.
    const later = journal.entries
        .slice(options.fromStep + 1)
        .map((e) => (isJsonObject(e.row.tool_call) ? e.row.tool_call.id : undefined))
        .filter((id) => typeof id === 'string');
    const where = `${file}:${options.fromStep + 1}`;
    let p;
    try {
        p = parseHookPayload(payloadBlob(root, options.agent, row.input_hash, options.fromStep), `${where}: input`);
    }
    catch (e) {
        if (e instanceof errors_InputError)
            throw new errors_IntegrityError(`${e.message}; not a step recorded by \`stepchain hook claude\``);
        throw e;
    }
    if (p.event !== 'PostToolUse' && p.event !== 'PostToolUseFailure')
        throw new errors_IntegrityError(`${where}: step ${options.fromStep} was recorded from a ${p.event} payload, not a tool call`);
    const toolUseId = payload_field(p, 'tool_use_id');
    const call = row.tool_call;
    if (toolUseId === undefined || !isJsonObject(call) || call.id !== toolUseId)
        throw new errors_IntegrityError(`${where}: the step's tool call and its stored payload do not name the same tool_use_id`);
    if (p.transcriptPath === undefined)
        throw new errors_IntegrityError(`${where}: the step's payload names no transcript_path`);
    const layout = transcriptLayout(p.transcriptPath, p.sessionId);
    if (layout === undefined)
        throw new errors_IntegrityError(`${p.transcriptPath}: not laid out as <config>/projects/<dir>/${p.sessionId}.jsonl; ` +
            'stepchain cannot tell where Claude Code would look for the fork');
    let bytes;
    try {
        if (!(0,external_node_fs_namespaceObject.lstatSync)(p.transcriptPath).isFile())
            throw new errors_IntegrityError(`${p.transcriptPath}: not a regular file`);
        bytes = (0,external_node_fs_namespaceObject.readFileSync)(p.transcriptPath);
    }
    catch (e) {
        if (e instanceof errors_IntegrityError)
            throw e;
        throw new errors_InputError(`${p.transcriptPath}: cannot read the session's transcript: ${e.code ?? e.message}`);
    }
    const sessionId = options.sessionId ?? (0,external_node_crypto_namespaceObject.randomUUID)();
    const cut = cutTranscript(bytes, p.transcriptPath, p.sessionId, toolUseId, sessionId, later);
    // Where the session was started: the directory whose name Claude Code stored it under.
    const started = [cut.firstCwd, p.cwd, cut.cutCwd].find((c) => c !== undefined && projectDirName(c) === layout.dirName);
    if (started === undefined)
        throw new errors_IntegrityError(`${p.transcriptPath}: stored under ${layout.dirName}, which is not the name of the session's working ` +
            'directory as stepchain derives it; refusing to guess where Claude Code would look for the fork');
    const rel = external_node_path_default().relative(root, started);
    if (rel.startsWith('..') || external_node_path_default().isAbsolute(rel))
        throw new errors_IntegrityError(`the session ran in ${started}, outside the project root ${root}`);
    const forkId = claudeAgentId(sessionId);
    const cwd = external_node_path_default().join(forkWorktreePath(root, forkId), rel);
    const name = projectDirName(cwd);
    if (name === undefined)
        throw new errors_IntegrityError(`${cwd}: Claude Code names its session directory for this path in a way stepchain cannot reproduce ` +
            '(longer than 200 characters, or not plain ASCII); the conversation is not forked');
    const warnings = [];
    const companion = external_node_path_default().join(external_node_path_default().dirname(p.transcriptPath), p.sessionId);
    try {
        if ((0,external_node_fs_namespaceObject.lstatSync)(companion).isDirectory())
            warnings.push(`${companion} (subagent transcripts) is not copied; the resumed conversation has their results as the main transcript recorded them`);
    }
    catch {
        /* none */
    }
    const configDir = external_node_path_default().dirname(layout.projectsDir);
    return {
        sessionId,
        forkId,
        parentTranscript: p.transcriptPath,
        cut,
        toolUseId,
        transcript: external_node_path_default().join(layout.projectsDir, name, `${sessionId}.jsonl`),
        cwd,
        configDir: configDir === configDirOf(options.env) ? undefined : configDir,
        warnings,
    };
}
/** Writes the planned transcript (never over an existing file); returns warnings about the fork's hooks. */
function placeClaudeResume(plan) {
    const dir = external_node_path_default().dirname(plan.transcript);
    let fd;
    try {
        (0,external_node_fs_namespaceObject.mkdirSync)(dir, { recursive: true, mode: 0o700 });
        fd = (0,external_node_fs_namespaceObject.openSync)(plan.transcript, 'wx', 0o600);
    }
    catch (e) {
        throw new errors_IntegrityError(`${plan.transcript}: cannot create the fork's transcript: ${e.code ?? e.message}`);
    }
    try {
        writeAll(fd, plan.cut.bytes);
        (0,external_node_fs_namespaceObject.fsyncSync)(fd);
    }
    catch (e) {
        (0,external_node_fs_namespaceObject.closeSync)(fd);
        (0,external_node_fs_namespaceObject.rmSync)(plan.transcript, { force: true });
        throw new errors_IntegrityError(`${plan.transcript}: cannot write: ${e.message}`);
    }
    (0,external_node_fs_namespaceObject.closeSync)(fd);
    fsyncDir(dir);
    // The resumed session records only if the fork's settings run the hook.
    const settings = external_node_path_default().join(plan.cwd, '.claude', 'settings.json');
    try {
        if (planClaudeSettings(settings).events.length > 0)
            return [
                `${settings} does not run \`stepchain hook claude\` for every event; run \`stepchain init claude --root ${shellWord(plan.cwd)}\` before resuming to keep recording`,
            ];
    }
    catch (e) {
        return [`${settings}: ${e.message}`];
    }
    return [];
}
/**
 * Forks `agent` at `fromStep` (a worktree with the files of that step and the
 * journal prefix, as `createFork`) under the id `claude-<new session id>`, and
 * places the conversation to resume. If placing it fails, the fork is removed
 * again, so nothing is left behind.
 */
async function forkClaudeSession(options) {
    const plan = planClaudeResume(options);
    const worktrees = worktreesDir(external_node_path_default().resolve(options.root));
    const hadWorktrees = (0,external_node_fs_namespaceObject.existsSync)(worktrees);
    const fork = await createFork({
        root: options.root,
        sessionId: options.agent,
        fromStep: options.fromStep,
        forkId: plan.forkId,
        env: options.env,
        ...(options.label === undefined ? {} : { label: options.label }),
    });
    let warnings;
    try {
        warnings = placeClaudeResume(plan);
    }
    catch (e) {
        let undo = 'the fork was removed again';
        try {
            await removeFork(external_node_path_default().resolve(options.root), plan.forkId, { force: true, env: options.env });
            if (!hadWorktrees) {
                try {
                    (0,external_node_fs_namespaceObject.rmdirSync)(worktrees); // only if still empty: a concurrent fork may be using it
                }
                catch {
                    /* not empty */
                }
            }
        }
        catch (ue) {
            undo = `removing the fork failed too (${ue.message.split('\n')[0]}); remove it with \`stepchain fork rm ${plan.forkId} --force\``;
        }
        throw new errors_IntegrityError(`fork ${options.agent}: ${e.message}; ${undo}`);
    }
    return { fork, plan, command: resumeCommand(plan), warnings: [...plan.warnings, ...warnings] };
}

;// CONCATENATED MODULE: ./src/cli/commands/fork-resume.ts





const forkCommandResume = 'With --resume (a session recorded by `stepchain hook claude`), also a Claude Code conversation that ends right ' +
    'after step N and the command that resumes it.';
/** `stepchain fork <session> --from-step N --resume`. */
async function runForkResume(args, io, session) {
    const step = args.values.get('from-step');
    if (step === undefined)
        throw new errors_InputError('fork --resume: give --from-step N (the step to resume after)');
    const label = args.values.get('label');
    const r = await forkClaudeSession({
        root: rootOf(args, io),
        agent: session,
        fromStep: intArg(step, '--from-step'),
        env: io.env,
        ...(label === undefined ? {} : { label }),
    });
    for (const w of [...r.fork.warnings, ...r.warnings])
        io.err(`stepchain: warning: ${sanitize(w)}`);
    if (args.flags.has('json')) {
        io.json({
            ...forkJsonDocument(r.fork),
            claude_session_id: r.plan.sessionId,
            claude_transcript: r.plan.transcript,
            resumes_after_tool_use_id: r.plan.toolUseId,
            resume_command: r.command,
        });
        return 0;
    }
    const f = r.fork;
    io.out(sanitize(`forked ${f.parent_session_id} at step ${f.from_step} as ${f.fork_session_id}`));
    io.out(sanitize(`  branch     ${f.fork_branch}`));
    io.out(sanitize(`  worktree   ${f.fork_worktree}`));
    io.out(sanitize(`  commit     ${f.fork_commit}${f.restored_from_snapshot ? ` (the files of step ${f.from_step})` : " (the parent's current commit)"}`));
    if (f.journal_path !== null)
        io.out(sanitize(`  journal    ${f.journal_path} (steps 0..${f.from_step})`));
    io.out(sanitize(`  transcript ${r.plan.transcript} (lines 1..${r.plan.cut.line} of the session, ending with the result of ${r.plan.toolUseId})`));
    io.out('resume the conversation (its next step is recorded as step ' +
        `${(f.from_step ?? 0) + 1} of ${f.fork_session_id}):`);
    io.out(`  ${r.command}`);
    return 0;
}

;// CONCATENATED MODULE: ./src/cli/commands/fork.ts





const forkCommand = {
    name: ['fork'],
    usage: '<session> [--from-step N [--resume]] [--label L] [--root DIR] [--json]',
    summary: 'Fork a recorded run into a sibling git worktree (.sdd/worktrees/<fork_id>, branch fork/<branch>/<fork_id>): ' +
        'with --from-step, the verified prefix [0..N] and the files of step N. ' +
        forkCommandResume,
    description: '<session> is an agent id with a journal (or a session file) in this project. The parent journal must verify first. ' +
        'The fork gets the journal prefix [0..N] and, when step N has a snapshot, exactly the files the agent had at step N. ' +
        'Nothing is left behind when a step fails. Remove a fork with `stepchain fork rm`.',
    options: {
        ...ROOT_OPTION,
        ...JSON_OPTION,
        'from-step': {
            kind: 'value',
            value: 'N',
            description: 'Fork at step N (0-based): the prefix [0..N] and the files of step N. Without it: a session-level fork.',
        },
        label: { kind: 'value', value: 'L', description: 'A label, kept in the fork block and used in the fork id.' },
        resume: {
            kind: 'flag',
            description: 'With --from-step, for a Claude Code session recorded by `stepchain hook claude`: also a conversation that ends right after step N, and the `claude --resume` command to carry on.',
        },
    },
    examples: [
        {
            run: 'stepchain fork agent-1 --from-step 3 --label "try another fix"',
            what: 'a worktree with the files of step 3',
        },
        {
            run: 'stepchain fork claude-<session_id> --from-step 3 --resume',
            what: 'fork a Claude Code session and resume it',
        },
        { run: 'stepchain forks', what: 'list the forks as a tree' },
    ],
    exitCodes: {
        0: 'forked',
        1: 'the parent journal does not verify, the worktree exists, or git failed (nothing left behind)',
        2: 'usage or input error (not a git repository, unknown session, step out of range)',
    },
    async run(args, io) {
        const [session] = expectPositionals(args, ['session'], 'fork');
        const step = args.values.get('from-step');
        const label = args.values.get('label');
        if (label !== undefined && label.trim() === '')
            throw new errors_InputError('--label: empty label');
        if (args.flags.has('resume'))
            return runForkResume(args, io, session);
        const r = await createFork({
            root: rootOf(args, io, { create: true }),
            sessionId: session,
            ...(step === undefined ? {} : { fromStep: intArg(step, '--from-step') }),
            ...(label === undefined ? {} : { label }),
            env: io.env,
        });
        for (const w of r.warnings)
            io.err(`stepchain: warning: ${w}`);
        if (args.flags.has('json')) {
            io.json(forkJsonDocument(r));
            return 0;
        }
        io.out(`forked ${r.parent_session_id}${r.from_step === null ? ' (session-level)' : ` at step ${r.from_step}`} as ${r.fork_session_id}`);
        io.out(`  branch    ${r.fork_branch}`);
        io.out(`  worktree  ${r.fork_worktree}`);
        io.out(`  commit    ${r.fork_commit}${r.restored_from_snapshot ? ` (the files of step ${r.from_step})` : " (the parent's current commit)"}`);
        if (r.parent_step_hash !== null)
            io.out(`  parent step_hash ${r.parent_step_hash}`);
        if (r.journal_path !== null)
            io.out(`  journal   ${r.journal_path}`);
        io.out(`  session   ${r.snapshot_path}`);
        if (r.journal_path !== null)
            io.out(`continue it: stepchain append ${r.fork_session_id} --root ${r.fork_worktree} ...`);
        return 0;
    },
};

;// CONCATENATED MODULE: ./src/cli/commands/fork-rm.ts



const forkRmCommand = {
    name: ['fork', 'rm'],
    usage: '<fork_id> [--force] [--root DIR] [--json]',
    summary: 'Remove a fork: its worktree, its branch and its snapshot refs. Refuses uncommitted changes unless --force.',
    description: "The branch's last commit is printed, so `git branch <name> <commit>` brings it back. A fork that has forks of its " +
        'own is refused: remove them first.',
    options: {
        ...ROOT_OPTION,
        ...JSON_OPTION,
        force: { kind: 'flag', description: 'Remove it even with uncommitted changes or untracked files.' },
    },
    examples: [{ run: 'stepchain fork rm fork-try-another-fix-20261202-090414-f5aeff', what: 'remove one fork' }],
    exitCodes: {
        0: 'removed',
        1: 'refused (uncommitted changes without --force, forks of its own)',
        2: 'usage or input error (no such fork)',
    },
    async run(args, io) {
        const [id] = expectPositionals(args, ['fork_id'], 'fork rm');
        const r = await removeFork(rootOf(args, io), id, { force: args.flags.has('force'), env: io.env });
        if (args.flags.has('json')) {
            io.json({ ...r });
            return 0;
        }
        io.out(`removed fork ${r.fork_session_id}`);
        io.out(`  worktree ${r.worktree}`);
        if (r.branch !== null)
            io.out(`  branch   ${r.branch}${r.branch_commit ? ` (was ${r.branch_commit})` : ''}`);
        io.out(`  snapshot refs ${r.removed_snapshot_refs}`);
        return 0;
    },
};

;// CONCATENATED MODULE: ./src/cli/commands/forks.ts



const forksCommand = {
    name: ['forks'],
    usage: '[--root DIR] [--json]',
    summary: 'Every fork of this repository as a tree: parent, fork step, branch, worktree, steps recorded since.',
    description: "Built from `git worktree list` and each fork worktree's session file: it cannot disagree with what is on disk. " +
        'A fork whose directory was deleted by hand is listed as missing.',
    options: { ...ROOT_OPTION, ...JSON_OPTION },
    examples: [{ run: 'stepchain forks --json', what: 'the tree as JSON' }],
    exitCodes: { 0: 'listed', 2: 'usage or input error (not a git repository)' },
    async run(args, io) {
        expectPositionals(args, [], 'forks');
        const forest = await listForks(rootOf(args, io), io.env);
        if (args.flags.has('json'))
            io.json({ forks: forest });
        else
            for (const line of drawForks(forest))
                io.out(line);
        return 0;
    },
};

;// CONCATENATED MODULE: ./src/claude/index.ts









;// CONCATENATED MODULE: ./src/cli/commands/hook-claude.ts




/**
 * The Claude Code hook command. Whatever happens it never exits 2 (Claude Code
 * reads exit 2 as "block"): 0 when everything was recorded, 1 with one line per
 * problem on stderr otherwise. It prints nothing on stdout (Claude Code adds a
 * SessionStart or UserPromptSubmit hook's stdout to the model's context).
 */
const hookClaudeCommand = {
    name: ['hook', 'claude'],
    usage: '[--root DIR] [--no-snapshot]  (reads one Claude Code hook payload on stdin)',
    summary: 'Record one Claude Code hook event: a tool call becomes a step of the journal claude-<session_id>, ' +
        'session events and compactions go to its run journal. Never blocks the agent (exit 0 or 1, never 2).',
    description: 'Configured as a Claude Code hook by `stepchain init claude`; Claude Code runs it with one JSON payload on stdin ' +
        '(PostToolUse, PostToolUseFailure, SessionStart, UserPromptSubmit, PreCompact, Stop, SessionEnd). The project root ' +
        "is found from the payload's cwd. It prints nothing on stdout; a failure is one line on stderr, and whatever could " +
        'be recorded is.',
    options: {
        ...ROOT_OPTION,
        'no-snapshot': { kind: 'flag', description: 'Do not store a worktree snapshot with each step.' },
    },
    examples: [
        {
            run: `echo '{"hook_event_name":"SessionStart","session_id":"s1","cwd":"'$PWD'","source":"startup"}' | stepchain hook claude`,
            what: 'what Claude Code does at the start of a session',
        },
    ],
    exitCodes: {
        0: 'recorded (or nothing to record)',
        1: 'not recorded (the reason on stderr); never 2, which would block the agent',
    },
    run(args, io) {
        let bytes;
        try {
            bytes = io.readStdin();
        }
        catch (e) {
            io.err(`stepchain: hook claude: cannot read the payload on stdin: ${e.message}`);
            return 1;
        }
        const root = args.values.get('root');
        const r = handleClaudeHook(bytes, {
            env: io.env,
            ...(root === undefined ? {} : { root: external_node_path_default().resolve(io.cwd, root) }),
            ...(args.flags.has('no-snapshot') ? { snapshot: false } : {}),
        });
        for (const w of r.warnings)
            io.err(`stepchain: hook claude: warning: ${sanitize(w)}`);
        for (const e of r.errors)
            io.err(`stepchain: hook claude: ${sanitize(e)}`);
        if (args.positionals.length > 0)
            io.err(`stepchain: hook claude: unexpected argument ${JSON.stringify(args.positionals[0])} (ignored)`);
        return r.errors.length > 0 ? 1 : 0;
    },
};

;// CONCATENATED MODULE: ./src/cli/commands/init-claude.ts





const initClaudeCommand = {
    name: ['init', 'claude'],
    usage: '[--settings FILE] [--remove] [--command CMD] [--dry-run] [--root DIR] [--json]',
    summary: "Install stepchain's Claude Code hooks into .claude/settings.json (or --settings FILE), keeping every other " +
        'setting; idempotent; prints the diff. --remove takes them out again.',
    options: {
        ...ROOT_OPTION,
        ...JSON_OPTION,
        settings: {
            kind: 'value',
            value: 'FILE',
            description: 'The settings file to change (default <root>/.claude/settings.json; created when missing).',
        },
        remove: { kind: 'flag', description: "Take stepchain's hook entries out again, leaving everything else." },
        command: {
            kind: 'value',
            value: 'CMD',
            description: 'The command the hooks run (default: the stepchain that runs this command, by absolute path).',
        },
        'dry-run': { kind: 'flag', description: 'Print the diff without writing.' },
    },
    description: 'Merges one hook entry per event stepchain records (PostToolUse, PostToolUseFailure, SessionStart, ' +
        'UserPromptSubmit, PreCompact, Stop, SessionEnd) into the settings, keeping every other hook and setting, their ' +
        'order and indentation. Running it twice changes nothing. A malformed or symlinked settings file is refused.',
    examples: [
        { run: 'stepchain init claude', what: 'start recording every Claude Code session in this project' },
        { run: 'stepchain init claude --remove', what: 'stop recording' },
    ],
    exitCodes: {
        0: 'installed, removed, or already so',
        1: 'refused (a symlinked settings file)',
        2: 'usage or input error (malformed settings, naming the line)',
    },
    run(args, io) {
        expectPositionals(args, [], 'init claude');
        const root = rootOf(args, io);
        const settings = args.values.get('settings');
        const file = settings === undefined ? external_node_path_default().join(root, '.claude', 'settings.json') : external_node_path_default().resolve(io.cwd, settings);
        const remove = args.flags.has('remove');
        const command = args.values.get('command');
        const plan = planClaudeSettings(file, { ...(command === undefined ? {} : { command }), remove });
        const dry = args.flags.has('dry-run');
        if (!dry)
            writeClaudeSettings(plan);
        if (args.flags.has('json')) {
            io.json({
                file: plan.file,
                changed: plan.changed,
                written: plan.changed && !dry,
                removed: remove,
                events: plan.events,
                updated: plan.updated,
                diff: plan.diff,
            });
            return 0;
        }
        const shown = sanitize(external_node_path_default().relative(io.cwd, plan.file) || plan.file);
        if (!plan.changed) {
            io.out(remove
                ? `${shown}: no stepchain hooks to remove; unchanged`
                : `${shown}: stepchain's hooks are already installed; unchanged`);
            return 0;
        }
        for (const line of plan.diff)
            io.out(sanitize(line));
        const verb = dry ? 'would be' : 'were';
        if (remove)
            io.out(`stepchain's hooks ${verb} removed from ${shown} (${plan.events.join(', ')})`);
        else {
            if (plan.events.length > 0)
                io.out(`stepchain's hooks ${verb} added to ${shown} for ${plan.events.join(', ')}`);
            if (plan.updated.length > 0)
                io.out(`the hook command ${verb} updated for ${plan.updated.join(', ')}`);
            if (!dry)
                io.out('Claude Code sessions started in this project are now recorded (journal claude-<session_id>).');
        }
        return 0;
    },
};

;// CONCATENATED MODULE: ./src/cli/commands/keygen.ts





const keygenCommand = {
    name: ['keygen'],
    usage: '-o PRIVATE.pem [--public PUBLIC.pem] [--json]',
    summary: 'Create an Ed25519 key pair for signing receipts (private key mode 0600; never overwrites a file).',
    description: 'The private key is written as PEM PKCS#8 with mode 0600, the public key as PEM SPKI. An existing file is never ' +
        'replaced (a lost private key cannot be recovered): remove it first to make a new one.',
    options: {
        ...JSON_OPTION,
        output: { kind: 'value', short: 'o', value: 'FILE', description: 'Where to write the private key (required).' },
        public: {
            kind: 'value',
            value: 'FILE',
            description: 'Where to write the public key (default: print it, for verifiers).',
        },
    },
    examples: [
        { run: 'stepchain keygen -o stepchain.key --public keys/receipts.pub', what: 'a key pair; commit only the .pub' },
    ],
    exitCodes: { 0: 'written', 2: 'usage error, a file exists, or its directory does not' },
    run(args, io) {
        expectPositionals(args, [], 'keygen');
        const out = args.values.get('output');
        if (out === undefined)
            throw new errors_InputError('keygen: missing -o PRIVATE.pem');
        const pub = args.values.get('public');
        const privateFile = external_node_path_default().resolve(io.cwd, out);
        const publicFile = pub === undefined ? undefined : external_node_path_default().resolve(io.cwd, pub);
        const pair = writeKeyPair(privateFile, publicFile);
        if (args.flags.has('json')) {
            io.json({
                ok: true,
                key_id: pair.keyId,
                private_key: privateFile,
                public_key: publicFile ?? null,
                public_key_pem: pair.publicKeyPem,
            });
            return 0;
        }
        io.out(`wrote private key ${out} (mode 0600), key id ${pair.keyId}`);
        if (pub !== undefined)
            io.out(`wrote public key ${pub}`);
        else
            io.out(`public key (give it to verifiers, e.g. save as a .pem file):\n${pair.publicKeyPem.trimEnd()}`);
        return 0;
    },
};

;// CONCATENATED MODULE: ./src/cli/commands/publish.ts



const publishCommand = {
    name: ['publish'],
    usage: '<agent|dir|file> -o RECEIPT --opt-in [--redact FIELDS] [--force] [--root DIR] [--agent-id ID] [--sign-key FILE] [--json]',
    summary: 'Write a privacy-redacted receipt (default redacts prompt,tool_result; re-anchored chain, no blobs). Requires --opt-in; the journal is untouched.',
    description: 'Each redacted field that is not null becomes "<<redacted>>", the chain is recomputed over the redacted rows ' +
        '(a new head, printed beside the original), blob_refs are emptied and no blobs are bundled.',
    options: {
        ...RECEIPT_WRITE_OPTIONS,
        'opt-in': {
            kind: 'flag',
            description: 'Required: nothing leaves .sdd/runtime/ without this explicit opt-in.',
        },
        redact: {
            kind: 'value',
            value: 'FIELDS',
            description: 'Comma-separated fields to redact, of prompt, model, tool_call, tool_result (default prompt,tool_result).',
        },
    },
    examples: [
        { run: 'stepchain publish agent-1 -o public.receipt.tar --opt-in', what: 'redact prompts and tool results' },
        {
            run: 'stepchain publish agent-1 -o public.receipt.tar --opt-in --redact prompt,tool_call,tool_result --sign-key stepchain.key',
            what: 'redact more, and sign',
        },
    ],
    exitCodes: {
        0: 'written',
        1: 'the journal does not verify (nothing written)',
        2: 'usage or input error (no --opt-in, the output exists without --force, a bad field)',
    },
    run(args, io) {
        // Refuse before reading anything else: nothing leaves .sdd/runtime/ without an explicit opt-in.
        if (!args.flags.has('opt-in')) {
            throw new errors_InputError('publish: refusing without --opt-in (receipts stay local unless you explicitly opt in); nothing was written');
        }
        const { journal, out, outFile, options: common } = receiptWriteTarget(args, io, 'publish');
        const options = { ...common, optIn: true };
        const redactText = args.values.get('redact');
        if (redactText !== undefined)
            options.redact = parseRedactFields(redactText);
        const r = publishReceipt(journal.file, outFile, options);
        for (const w of r.warnings)
            io.err(`stepchain: warning: ${w}`);
        if (args.flags.has('json')) {
            io.json({
                ok: true,
                receipt: outFile,
                agent_id: r.manifest.agent_id,
                steps: r.steps,
                redacted: r.redacted,
                original_head: r.original_head,
                published_head: r.published_head,
                signed: r.signed,
                key_id: r.key_id,
            });
            return 0;
        }
        io.out(`published ${r.steps} redacted step${r.steps === 1 ? '' : 's'} of ${r.manifest.agent_id} to ${out} (redacted: ${r.redacted.join(', ')})`);
        io.out(`  original head  ${r.original_head}  (local journal, unchanged)`);
        io.out(`  published head ${r.published_head}  (verify the receipt against this one)`);
        io.out(`  signed         ${r.signed ? `yes (key id ${r.key_id})` : 'no'}`);
        return 0;
    },
};

;// CONCATENATED MODULE: ./src/cli/commands/receipt-verify.ts




const receiptVerifyCommand = {
    name: ['receipt', 'verify'],
    usage: 'RECEIPT [--expected-head HEX] [--public-key FILE]... [--require-blobs] [--json]',
    summary: 'Verify a receipt offline without extracting it: members, manifest, signature, chain, blobs. Exit 0 holds, 1 does not, 2 bad input.',
    description: 'Nothing is extracted: member names and types, the manifest, the signature, the chain from genesis, the manifest ' +
        "against the chain, and every bundled blob's digest are checked in memory. A signed receipt verifies only under a " +
        'trusted key: given none, it fails with no_trusted_key ("signature NOT checked").',
    options: {
        ...JSON_OPTION,
        'expected-head': {
            kind: 'value',
            value: 'HEX',
            description: 'The head the chain must end at (e.g. printed when the receipt was exported).',
        },
        'public-key': PUBLIC_KEY_OPTION,
        'require-blobs': { kind: 'flag', description: 'Fail when a blob the manifest names is not bundled.' },
    },
    examples: [
        { run: 'stepchain receipt verify run.receipt.tar --public-key keys/receipts.pub', what: 'a signed receipt' },
        { run: 'stepchain receipt verify public.receipt.tar --expected-head 7af96d16...', what: 'pinned to a head' },
    ],
    exitCodes: {
        0: 'the receipt verifies (and its signature, under a trusted key, when signed)',
        1: 'a problem, each printed (a signature not checked is one)',
        2: 'usage or input error (no such file, a bad key)',
    },
    run(args, io) {
        const [receipt] = expectPositionals(args, ['receipt'], 'receipt verify');
        const expectedHead = hashOption(args, 'expected-head');
        const publicKeys = (args.lists.get('public-key') ?? []).map((f) => readPublicKeyFile(external_node_path_default().resolve(io.cwd, f)));
        const r = verifyReceipt(external_node_path_default().resolve(io.cwd, receipt), {
            publicKeys,
            requireBlobs: args.flags.has('require-blobs'),
            ...(expectedHead === undefined ? {} : { expectedHead }),
        });
        if (args.flags.has('json')) {
            io.json(r);
        }
        else if (r.ok) {
            const sig = signatureVerdict(r, publicKeys.length).text;
            io.out(`OK ${receipt}: ${r.steps} step${r.steps === 1 ? '' : 's'}, head ${r.head_hash}, ${sig}, blobs ${r.blobs.bundled.length} bundled, ${r.blobs.missing.length} missing`);
        }
        else {
            const v = signatureVerdict(r, publicKeys.length);
            io.out(`FAIL ${receipt}: ${r.errors.length} problem${r.errors.length === 1 ? '' : 's'}${v.holds ? '' : `; ${v.text}`}`);
        }
        if (!r.ok)
            for (const f of r.errors)
                io.err(describeReceiptFault(receipt, f));
        return r.ok ? 0 : 1;
    },
};

;// CONCATENATED MODULE: ./src/cli/commands/replay.ts







/**
 * Opens a target for display, verified first. A broken chain prints every fault
 * (`file:line: kind: message`) on stderr and is rethrown: exit 1, nothing shown.
 */
function openForDisplay(target, args, io) {
    const publicKeys = (args.lists.get('public-key') ?? []).map((f) => readPublicKeyFile(external_node_path_default().resolve(io.cwd, f)));
    try {
        return openReplay(target, {
            root: rootOf(args, io),
            cwd: io.cwd,
            ...(publicKeys.length > 0 ? { publicKeys } : {}),
        });
    }
    catch (e) {
        if (e instanceof BrokenChainError)
            for (const f of e.faults)
                io.err(f);
        throw e;
    }
}
/** 1 when a receipt shown has a signature nobody checked (see signatureVerdict): shown, but not a green verdict. */
function displayVerdict(sources, io, json) {
    let code = 0;
    for (const s of sources) {
        const v = sourceSignature(s);
        if (v === undefined || v.holds)
            continue;
        code = 1;
        if (!json)
            io.err(`stepchain: ${s.file}: ${v.text}; the verdict is not "verified" (exit 1)`);
    }
    return code;
}
const replayCommand = {
    name: ['replay'],
    usage: '<agent|dir|file|receipt> [--root DIR] [--json] [--limit N] [--public-key FILE]...',
    summary: 'Walk a verified run step by step: interactive on a terminal (n/p, g/G, seq+Enter, /search, Enter expands, f forks, ? keys, q quits), ' +
        'a table of steps otherwise, or --json. A broken chain: exit 1, nothing shown.',
    description: 'The chain is verified from genesis before anything is shown (a receipt: the whole receipt). On a terminal, `f` forks the ' +
        'run at the step shown into a new git worktree after asking (not offered for a receipt), and `?` lists every key. ' +
        'A signed receipt given no --public-key is shown with "signature NOT checked" in the warning colour and exits 1.',
    options: {
        ...ROOT_OPTION,
        ...JSON_OPTION,
        limit: {
            kind: 'value',
            value: 'N',
            description: 'Only the first N steps: the table, the JSON entries, and the steps walked on a terminal.',
        },
        'public-key': PUBLIC_KEY_OPTION,
    },
    examples: [
        { run: 'stepchain replay agent-1', what: 'walk the run on a terminal' },
        { run: 'stepchain replay agent-1 --limit 20 | less', what: 'the first 20 steps as a table' },
        {
            run: 'stepchain replay run.receipt.tar --public-key keys/receipts.pub',
            what: 'a signed receipt, signature checked',
        },
    ],
    exitCodes: {
        0: 'shown, everything verified',
        1: 'the chain or receipt does not verify (nothing shown), or a signature was not checked',
        2: 'usage or input error',
    },
    async run(args, io) {
        const [target] = expectPositionals(args, ['agent|dir|file|receipt'], 'replay');
        const limitText = args.values.get('limit');
        const limit = limitText === undefined ? undefined : intArg(limitText, '--limit');
        if (limit === 0)
            throw new errors_InputError('--limit: give at least 1 step');
        const source = openForDisplay(target, args, io);
        const json = args.flags.has('json');
        if (json) {
            io.json(replayDocument(source, limit));
            return displayVerdict([source], io, true);
        }
        if (!io.isTTY) {
            for (const line of stepTable(source, limit))
                io.out(line);
            return displayVerdict([source], io, false);
        }
        const projectRoot = source.projectRoot;
        const canFork = source.kind === 'journal' && projectRoot !== undefined;
        await runInteractive(source, {
            ...(limit === undefined ? {} : { limit }),
            ...(canFork
                ? {
                    fork: async (seq) => {
                        const r = await createFork({ root: projectRoot, sessionId: source.agentId, fromStep: seq, env: io.env });
                        return [
                            `forked at step ${seq} as ${r.fork_session_id}`,
                            '',
                            `worktree  ${r.fork_worktree}`,
                            `branch    ${r.fork_branch}`,
                            `commit    ${r.fork_commit}${r.restored_from_snapshot ? ` (the files of step ${seq})` : " (the parent's current commit)"}`,
                            ...r.warnings.map((w) => `warning: ${w}`),
                            '',
                            `continue it: stepchain append ${r.fork_session_id} --root ${r.fork_worktree} ...`,
                        ];
                    },
                }
                : {}),
        });
        return displayVerdict([source], io, false);
    },
};

;// CONCATENATED MODULE: ./src/cli/commands/report.ts









/** A path-like target is taken relative to the command's cwd; an agent id is left for resolveJournal. */
function targetOf(target, io, root) {
    const abs = external_node_path_default().resolve(io.cwd, target);
    if (target.includes('/') || target.includes((external_node_path_default()).sep) || /\.(jsonl|tar|tgz|gz)$/i.test(target))
        return abs;
    if (isSafeId(target) && (0,external_node_fs_namespaceObject.existsSync)(journalDir(root, target)))
        return target;
    return (0,external_node_fs_namespaceObject.existsSync)(abs) ? abs : target;
}
const reportCommand = {
    name: ['report'],
    usage: '<agent|dir|file|receipt> -o FILE.html [--root DIR] [--public-key FILE]... [--max-steps N [--from SEQ]] [--force] [--json]',
    summary: 'Write a self-contained HTML report that re-verifies the chain in the browser. Written for a broken chain too (it shows the faults); exit 0 intact, 1 not.',
    description: 'The page embeds the journal and re-verifies every step hash in the browser, offline. An existing file is replaced only ' +
        'when it is an earlier stepchain report, or with --force. A signed receipt given no --public-key is reported with ' +
        '"signature NOT checked" and exits 1.',
    options: {
        ...ROOT_OPTION,
        ...JSON_OPTION,
        output: { kind: 'value', short: 'o', value: 'FILE.html', description: 'The page to write (required).' },
        'public-key': PUBLIC_KEY_OPTION,
        force: { kind: 'flag', description: 'Replace the output file even if it is not an earlier stepchain report.' },
        'max-steps': {
            kind: 'value',
            value: 'N',
            description: 'Embed a window of N steps (default: the last N) instead of the whole journal; the generator still verifies all of it. For runs too large for a browser.',
        },
        from: { kind: 'value', value: 'SEQ', description: 'Start the --max-steps window at step SEQ.' },
    },
    examples: [
        { run: 'stepchain report agent-1 -o report.html', what: 'a report of a journal' },
        { run: 'stepchain report agent-1 -o last.html --max-steps 1000', what: 'the last 1,000 steps of a long run' },
        {
            run: 'stepchain report run.receipt.tar -o report.html --public-key keys/receipts.pub',
            what: 'of a signed receipt',
        },
    ],
    exitCodes: {
        0: 'written; the chain verifies (and a signature, if any, was checked)',
        1: 'written, showing the faults (the chain does not verify, or a signature was not checked)',
        2: 'usage or input error (the output exists and is not a report, without --force)',
    },
    async run(args, io) {
        const [target] = expectPositionals(args, ['agent|dir|file|receipt'], 'report');
        const out = args.values.get('output');
        if (out === undefined)
            throw new errors_InputError('report: missing -o FILE.html');
        const outFile = external_node_path_default().resolve(io.cwd, out);
        // The window options are checked before any journal is read.
        const maxSteps = args.values.get('max-steps');
        const from = args.values.get('from');
        if (from !== undefined && maxSteps === undefined)
            throw new errors_InputError('report: --from needs --max-steps N');
        if (maxSteps !== undefined && intArg(maxSteps, '--max-steps') < 1)
            throw new errors_InputError('--max-steps: expected at least 1 step');
        const publicKeys = (args.lists.get('public-key') ?? []).map((f) => readPublicKeyFile(external_node_path_default().resolve(io.cwd, f)));
        const root = rootOf(args, io);
        const source = source_loadReportSource(targetOf(target, io, root), root, { publicKeys });
        // The fork tree is an extra: a git problem leaves it out (with a note), never the report.
        let forks = null;
        if (source.kind === 'journal') {
            try {
                forks = await reportForkTree(projectRootOf(external_node_path_default().dirname(source.path)) ?? root, source.agentId, io.env);
            }
            catch (e) {
                io.err(`stepchain: report: fork tree left out: ${e.message.split('\n')[0]}`);
            }
        }
        const r = report_writeReport(source, outFile, {
            root,
            force: args.flags.has('force'),
            forks,
            ...(maxSteps === undefined ? {} : { maxSteps: intArg(maxSteps, '--max-steps') }),
            ...(from === undefined ? {} : { fromStep: intArg(from, '--from') }),
        });
        for (const w of r.warnings)
            io.err(`stepchain: report: warning: ${w}`);
        if (args.flags.has('json')) {
            io.json({
                file: r.file,
                source: r.source,
                ok: r.ok,
                head_hash: r.head_hash,
                steps: r.steps,
                errors: r.errors,
                blobs: r.blobs,
                window: r.window,
                warnings: r.warnings,
            });
        }
        else {
            const blobs = r.blobs.embedded + r.blobs.skipped > 0
                ? `, ${r.blobs.embedded} blob(s) embedded, ${r.blobs.skipped} skipped`
                : '';
            const window = r.window === null
                ? ''
                : `, lines ${r.window.first_line}-${r.window.last_line} embedded (${r.window.steps} steps)`;
            io.out(r.ok
                ? `wrote ${r.file}: ${r.steps} step${r.steps === 1 ? '' : 's'}, head ${r.head_hash}, chain intact${blobs}${window}`
                : `wrote ${r.file}: the report shows ${r.errors.length} fault${r.errors.length === 1 ? '' : 's'} (the chain does NOT verify)${blobs}${window}`);
        }
        if (!r.ok)
            for (const f of r.errors)
                io.err(`${r.source}${f.line === null ? '' : `:${f.line}`}: ${f.kind}: ${f.message}`);
        return r.ok ? 0 : 1;
    },
};

;// CONCATENATED MODULE: ./src/cli/commands/run-common.ts


function jsonObjectOption(args, name, ordered) {
    const text = args.values.get(name);
    if (text === undefined)
        return undefined;
    let v;
    try {
        v = parse(text, ordered ? { objects: 'map' } : {});
    }
    catch (e) {
        if (e instanceof JsonParseError)
            throw new errors_InputError(`--${name}: not JSON: ${e.message}`);
        throw e;
    }
    if (ordered ? !(v instanceof Map) : !isJsonObject(v))
        throw new errors_InputError(`--${name}: expected a JSON object`);
    return v;
}
/** A required single-value option. */
function required(args, name, command) {
    const v = args.values.get(name);
    if (v === undefined || v === '')
        throw new errors_InputError(`${command}: --${name} is required`);
    return v;
}

;// CONCATENATED MODULE: ./src/cli/commands/run-capability.ts




const runCapabilityCommand = {
    name: ['run', 'capability'],
    usage: '<run> --adapter NAME --capability observed|declared-blind [--root DIR] [--json]',
    summary: "Record an adapter's ability to observe provider-side mutations (once per adapter per run).",
    description: 'Recording the same adapter again is a no-op; a conflicting capability for the same adapter is refused.',
    options: {
        ...ROOT_OPTION,
        ...JSON_OPTION,
        adapter: { kind: 'value', value: 'NAME', description: 'The adapter (required), e.g. claude.' },
        capability: {
            kind: 'value',
            value: 'observed|declared-blind',
            description: 'Whether it observes provider-side mutations (required).',
        },
    },
    examples: [
        { run: 'stepchain run capability run-42 --adapter claude --capability observed', what: 'claude observes' },
    ],
    exitCodes: {
        0: 'recorded (or already recorded)',
        1: 'the run journal does not verify, or a conflicting capability',
        2: 'usage or input error',
    },
    run(args, io) {
        const [run] = expectPositionals(args, ['run'], 'run capability');
        const adapter = required(args, 'adapter', 'run capability');
        const capability = required(args, 'capability', 'run capability');
        const { row, file } = recordCapability(rootOf(args, io, { create: true }), run, adapter, capability, {
            env: io.env,
        });
        if (args.flags.has('json')) {
            io.json({
                file,
                adapter,
                capability,
                recorded: row !== undefined,
                index: row?.index ?? null,
                event_hash: row?.event_hash ?? null,
            });
        }
        else if (row === undefined) {
            io.out(`${adapter} is already recorded as ${capability} for this run (${file}); nothing written`);
        }
        else {
            io.out(`recorded ${adapter}: ${capability} at index ${row.index} in ${file}`);
        }
        return 0;
    },
};

;// CONCATENATED MODULE: ./src/cli/commands/run-diff.ts



const runDiffCommand = {
    name: ['run', 'diff'],
    usage: '<a> <b> [--root DIR] [--json]',
    summary: 'Find where two runs diverge (hashed payloads, never timestamps), attributing provider-side mutations. Exit 0 identical, 1 diverged.',
    description: 'Rows are compared by event type and recomputed payload hash. Where both rows are the same kind of mutation, the ' +
        'payload fields that differ are named (e.g. only `flagged`). Both chains must verify; a broken chain is an error ' +
        '(with --json, the error document lists its faults).',
    options: { ...ROOT_OPTION, ...JSON_OPTION },
    examples: [{ run: 'stepchain run diff run-41 run-42', what: 'where two runs went apart' }],
    exitCodes: {
        0: 'identical',
        1: 'diverged, or a chain does not verify',
        2: 'usage or input error',
    },
    run(args, io) {
        const [a, b] = expectPositionals(args, ['a', 'b'], 'run diff');
        const root = rootOf(args, io);
        const d = diffRuns(resolveRunJournal(a, root), resolveRunJournal(b, root));
        if (args.flags.has('json'))
            io.json(d);
        else if (!d.diverged)
            io.out(d.reason);
        else
            io.out(`diverged at index ${d.index}: ${d.reason_code}${d.mutation_kind === null ? '' : ` (${d.mutation_kind})`}: ${d.reason}`);
        return d.diverged ? 1 : 0;
    },
};

;// CONCATENATED MODULE: ./src/cli/commands/run-mutation.ts





/** Prints what a mutation-recording command did (shared with `run ingest`). */
function reportMutations(io, r) {
    for (const m of r.mutations) {
        io.out(`  [${m.row.index}] ${m.mutation.kind} step ${m.mutation.step_index} ${m.content_address}${m.mutation.flagged ? '  FLAGGED' : ''}`);
    }
    if (r.deterministic !== undefined && r.mutations.length > 0) {
        io.err(`stepchain: warning: ${r.deterministic} is set (deterministic mode): ${r.mutations.length} mutation(s) recorded flagged; \`run verify\` fails closed on them`);
    }
}
const runMutationCommand = {
    name: ['run', 'mutation'],
    usage: '<run> --agent ID --kind KIND [--detail JSON] [--step-index N] [--key FILE] [--root DIR] [--json]',
    summary: 'Chain one provider-side context mutation into a run journal (content-addressed; flagged in deterministic mode).',
    description: 'The mutation is content-addressed (kind, before and after digests, step) and mirrored into the audit chain. ' +
        'In deterministic mode (STEPCHAIN_DETERMINISTIC_SEED or STEPCHAIN_REPLAY_RUN_ID set) it is recorded flagged, and ' +
        '`run verify` then fails closed.',
    options: {
        ...ROOT_OPTION,
        ...JSON_OPTION,
        agent: { kind: 'value', value: 'ID', description: 'The agent it happened to (required).' },
        kind: { kind: 'value', value: 'KIND', description: 'The mutation kind (required), e.g. compact_boundary.' },
        detail: {
            kind: 'value',
            value: 'JSON',
            description: 'What the provider reported, a JSON object (pre_*/before_* fields form the before digest).',
        },
        'step-index': { kind: 'value', value: 'N', description: 'The step it happened at.' },
        key: { kind: 'value', value: 'FILE', description: 'The audit key file (default from the environment).' },
    },
    examples: [
        {
            run: 'stepchain run mutation run-42 --agent coder --kind compact_boundary --detail \'{"pre_tokens":90000}\' --step-index 7',
            what: 'pin a context compaction',
        },
    ],
    exitCodes: {
        0: 'recorded',
        1: 'the run journal does not verify (nothing written)',
        2: 'usage or input error',
    },
    run(args, io) {
        const [run] = expectPositionals(args, ['run'], 'run mutation');
        const input = {
            agentId: required(args, 'agent', 'run mutation'),
            kind: required(args, 'kind', 'run mutation'),
        };
        const detail = jsonObjectOption(args, 'detail', false);
        if (detail !== undefined)
            input.detail = detail;
        const step = args.values.get('step-index');
        if (step !== undefined)
            input.stepIndex = intArg(step, '--step-index');
        const key = args.values.get('key');
        const r = recordMutation(rootOf(args, io, { create: true }), run, input, key === undefined ? { env: io.env } : { env: io.env, keyPath: external_node_path_default().resolve(io.cwd, key) });
        const m = r.mutations[0];
        if (args.flags.has('json')) {
            io.json({
                file: r.file,
                run,
                agent: input.agentId,
                index: m.row.index,
                kind: m.mutation.kind,
                step_index: m.mutation.step_index,
                before_digest: m.mutation.before_digest,
                after_digest: m.mutation.after_digest,
                content_address: m.content_address,
                flagged: m.mutation.flagged,
                journal_head: m.row.event_hash,
                warnings: r.warnings,
            });
            if (r.deterministic !== undefined)
                io.err(`stepchain: warning: ${r.deterministic} is set: mutation recorded flagged`);
        }
        else {
            io.out(`recorded provider_state_mutation in ${r.file}`);
            reportMutations(io, r);
            io.out(`  journal head ${m.row.event_hash}`);
        }
        for (const w of r.warnings)
            io.err(`stepchain: warning: ${w}`);
        return 0;
    },
};

;// CONCATENATED MODULE: ./src/cli/commands/run-ingest.ts






const runIngestCommand = {
    name: ['run', 'ingest'],
    usage: '<run> --agent ID --claude-stream FILE|- [--key FILE] [--root DIR] [--json]',
    summary: 'Read a Claude Code stream-json transcript: record the adapter as observed and chain every context-mutation signal.',
    description: 'Each compaction or context-mutation signal in the transcript becomes a provider_state_mutation row; the claude ' +
        'adapter is recorded as observed (once per run).',
    options: {
        ...ROOT_OPTION,
        ...JSON_OPTION,
        agent: { kind: 'value', value: 'ID', description: 'The agent the transcript belongs to (required).' },
        'claude-stream': {
            kind: 'value',
            value: 'FILE|-',
            description: 'The `claude -p --output-format stream-json` transcript (required); `-` reads stdin.',
        },
        key: { kind: 'value', value: 'FILE', description: 'The audit key file (default from the environment).' },
    },
    examples: [
        {
            run: 'claude -p "fix it" --output-format stream-json --verbose | stepchain run ingest run-42 --agent coder --claude-stream -',
            what: 'ingest a live transcript',
        },
    ],
    exitCodes: {
        0: 'ingested',
        1: 'the run journal does not verify (nothing written)',
        2: 'usage or input error (unreadable transcript)',
    },
    run(args, io) {
        const [run] = expectPositionals(args, ['run'], 'run ingest');
        const agent = required(args, 'agent', 'run ingest');
        const source = required(args, 'claude-stream', 'run ingest');
        const bytes = readInputFile(source, io, 'transcript');
        const key = args.values.get('key');
        const r = ingestClaudeStream(rootOf(args, io, { create: true }), run, agent, bytes, source === '-' ? '<stdin>' : source, key === undefined ? { env: io.env } : { env: io.env, keyPath: external_node_path_default().resolve(io.cwd, key) });
        const head = r.mutations.at(-1)?.row.event_hash ?? r.capabilityRow?.event_hash ?? null;
        if (args.flags.has('json')) {
            io.json({
                file: r.file,
                run,
                agent,
                events: r.transcript.events,
                capability_recorded: r.capabilityRow !== undefined,
                mutations: r.mutations.map((m) => ({
                    index: m.row.index,
                    kind: m.mutation.kind,
                    step_index: m.mutation.step_index,
                    content_address: m.content_address,
                    flagged: m.mutation.flagged,
                })),
                journal_head: head,
                warnings: r.warnings,
            });
            if (r.deterministic !== undefined && r.mutations.length > 0)
                io.err(`stepchain: warning: ${r.deterministic} is set: mutations recorded flagged`);
        }
        else {
            io.out(`ingested ${r.transcript.events} stream-json events into ${r.file}: claude ${r.capabilityRow === undefined ? 'already recorded as observed' : 'recorded as observed'}, ` +
                `${r.mutations.length} context mutation${r.mutations.length === 1 ? '' : 's'}`);
            reportMutations(io, r);
            if (head !== null)
                io.out(`  journal head ${head}`);
        }
        for (const w of r.warnings)
            io.err(`stepchain: warning: ${w}`);
        return 0;
    },
};

;// CONCATENATED MODULE: ./src/cli/commands/run-record.ts





const runRecordCommand = {
    name: ['run', 'record'],
    usage: '<run> --event TYPE [--data JSON] [--root DIR] [--json]',
    summary: 'Append one event to a run journal (.sdd/runs/<run>/journal.jsonl), verifying the chain first.',
    description: 'The run journal is created on the first event; its chain is verified before every append (fail-closed).',
    options: {
        ...ROOT_OPTION,
        ...JSON_OPTION,
        event: { kind: 'value', value: 'TYPE', description: 'The event type (required), e.g. llm_response.' },
        data: { kind: 'value', value: 'JSON', description: 'The payload: a JSON object, key order kept.' },
    },
    examples: [{ run: 'stepchain run record run-42 --event llm_response --data \'{"text":"ok"}\'', what: 'one event' }],
    exitCodes: {
        0: 'recorded',
        1: 'the run journal does not verify (nothing written)',
        2: 'usage or input error (bad id, bad JSON)',
    },
    run(args, io) {
        const [run] = expectPositionals(args, ['run'], 'run record');
        const event = required(args, 'event', 'run record');
        const data = jsonObjectOption(args, 'data', true) ?? new Map();
        const { row, file } = recordRunEvent(rootOf(args, io, { create: true }), run, event, data, { env: io.env });
        if (args.flags.has('json'))
            io.out(encodeRunRow(row));
        else
            io.out(`recorded ${row.event} at index ${row.index} in ${file}\n  event_hash ${row.event_hash}`);
        return 0;
    },
};

;// CONCATENATED MODULE: ./src/cli/commands/run-verify.ts



const runVerifyCommand = {
    name: ['run', 'verify'],
    usage: '<run|dir|file> [--strict] [--root DIR] [--json]',
    summary: 'Verify a run journal: hash chain, mutation content addresses, flagged mutations, capabilities. Exit 0 holds, 1 not.',
    description: '<run|dir|file> is a run id (under <root>/.sdd/runs/), a run directory or a journal.jsonl. A flagged mutation ' +
        '(recorded in deterministic mode) fails closed.',
    options: {
        ...ROOT_OPTION,
        ...JSON_OPTION,
        strict: { kind: 'flag', description: 'Also report blank lines and non-canonical bytes.' },
    },
    examples: [{ run: 'stepchain run verify run-42', what: 'verify a run journal' }],
    exitCodes: { 0: 'the run journal holds', 1: 'a fault (each printed with its line)', 2: 'usage or input error' },
    run(args, io) {
        const [target] = expectPositionals(args, ['run|dir|file'], 'run verify');
        const file = resolveRunJournal(target, rootOf(args, io));
        const r = verifyRunJournal(file, { strict: args.flags.has('strict') });
        if (args.flags.has('json')) {
            io.json(r);
        }
        else if (r.ok) {
            const caps = r.capabilities.map((c) => `${c.adapter}=${c.capability}`).join(', ') || 'none recorded';
            io.out(`OK ${file}: ${r.count} event${r.count === 1 ? '' : 's'}, ${r.mutation_count} pinned mutation${r.mutation_count === 1 ? '' : 's'}, capabilities: ${caps}, head ${r.head_hash}`);
        }
        else {
            const where = r.divergent_index === null
                ? ''
                : `; chain diverges at index ${r.divergent_index} (expected ${r.expected_hash}, stored ${r.actual_hash})`;
            io.out(`FAIL ${file}: ${r.errors.length} fault${r.errors.length === 1 ? '' : 's'} in ${r.count} rows${where}`);
        }
        if (!r.ok)
            for (const f of r.errors)
                io.err(describeRunFault(file, f));
        return r.ok ? 0 : 1;
    },
};

;// CONCATENATED MODULE: ./src/cli/commands/show.ts




const showCommand = {
    name: ['show'],
    usage: '<agent|dir|file|receipt> <seq> [--root DIR] [--json] [--public-key FILE]...',
    summary: "One step of a verified run in full, with its blobs' sizes and a preview (missing blobs marked).",
    description: '<seq> is the 0-based step number. The chain is verified from genesis first; a chain that does not verify shows nothing (exit 1).',
    options: { ...ROOT_OPTION, ...JSON_OPTION, 'public-key': PUBLIC_KEY_OPTION },
    examples: [
        { run: 'stepchain show agent-1 3', what: 'step 3 of agent-1, every field in full' },
        { run: 'stepchain show agent-1 3 --json', what: 'the row exactly as stored, with its blobs' },
    ],
    exitCodes: {
        0: 'shown, everything verified',
        1: 'the chain or receipt does not verify, or a signature was not checked',
        2: 'usage or input error (no such step)',
    },
    run(args, io) {
        const [target, seqText] = expectPositionals(args, ['agent|dir|file|receipt', 'seq'], 'show');
        const seq = intArg(seqText, 'show: <seq>');
        const source = openForDisplay(target, args, io);
        const json = args.flags.has('json');
        if (json)
            io.json(showDocument(source, seq));
        else
            for (const line of showLines(source, seq))
                io.out(line);
        return displayVerdict([source], io, json);
    },
};

;// CONCATENATED MODULE: ./src/cli/commands/verify.ts



const verifyCommand = {
    name: ['verify'],
    usage: '<agent|dir|file> [--root DIR] [--expected-head HEX] [--strict] [--json]',
    summary: 'Verify a per-step journal from genesis: every fault with its line and kind. Exit 0 intact, 1 not.',
    description: '<agent|dir|file> is an agent id (under <root>/.sdd/runtime/journal/), a journal directory or a .jsonl file. ' +
        'Every fault is printed on stderr as file:line: kind: message (malformed_json, seq_mismatch, prev_hash_mismatch, ' +
        'step_hash_mismatch, head_mismatch, ...).',
    options: {
        ...ROOT_OPTION,
        ...JSON_OPTION,
        'expected-head': {
            kind: 'value',
            value: 'HEX',
            description: 'The head the journal must end at (e.g. recorded elsewhere); another head is a head_mismatch.',
        },
        strict: {
            kind: 'flag',
            description: 'Also report lines whose bytes are not canonical, and blank lines (non_canonical).',
        },
    },
    examples: [
        { run: 'stepchain verify agent-1', what: "verify agent-1's journal in this project" },
        {
            run: 'stepchain verify .sdd/runtime/journal/agent-1/000000.jsonl --expected-head 7af96d16...',
            what: 'a file, pinned to a known head',
        },
    ],
    exitCodes: { 0: 'the chain is intact', 1: 'a fault (each printed with its line)', 2: 'usage or input error' },
    run(args, io) {
        const [target] = expectPositionals(args, ['agent|dir|file'], 'verify');
        const expectedHead = hashOption(args, 'expected-head');
        const { file } = resolveJournal(target, rootOf(args, io));
        const result = verifyJournalFile(file, {
            ...(expectedHead === undefined ? {} : { expectedHead }),
            strict: args.flags.has('strict'),
        });
        if (args.flags.has('json')) {
            io.json({ ok: result.ok, head_hash: result.head_hash, steps: result.steps, errors: result.errors });
        }
        else if (result.ok) {
            io.out(`OK ${file}: ${result.steps} step${result.steps === 1 ? '' : 's'}, head ${result.head_hash}`);
        }
        else {
            io.out(`FAIL ${file}: ${result.errors.length} fault${result.errors.length === 1 ? '' : 's'} in ${result.steps} well-formed rows`);
        }
        if (!result.ok)
            for (const f of result.errors)
                io.err(describeFault(file, f));
        return result.ok ? 0 : 1;
    },
};

;// CONCATENATED MODULE: ./src/cli/commands/index.ts

























/**
 * Every CLI command, one module each, each a thin layer over the library.
 * Add a command by importing it here.
 */
const commands = [
    appendCommand,
    verifyCommand,
    keygenCommand,
    exportCommand,
    receiptVerifyCommand,
    publishCommand,
    forkCommand,
    forkRmCommand,
    forksCommand,
    replayCommand,
    showCommand,
    diffCommand,
    reportCommand,
    runRecordCommand,
    runCapabilityCommand,
    runMutationCommand,
    runIngestCommand,
    runVerifyCommand,
    runDiffCommand,
    checkCommand,
    auditVerifyCommand,
    auditQueryCommand,
    initClaudeCommand,
    hookClaudeCommand,
    demoCommand,
];

;// CONCATENATED MODULE: ./src/cli/help.ts



/**
 * Help texts: the command list, a group's commands (`stepchain receipt`), one
 * command with every option described, examples and exit codes. Everything is
 * wrapped at `width` columns (the terminal's, else 80), words never cut.
 */
/** Exit codes every command shares, shown when a command does not say more. */
const COMMON_EXIT_CODES = {
    0: 'done / holds',
    1: 'does not hold (or refused)',
    2: 'usage or input error',
};
/** Splits text into lines of at most `width` columns at spaces; only a word longer than a whole line is cut. */
function wrapWords(text, width) {
    const out = [];
    for (const para of text.split('\n')) {
        let line = '';
        for (const word of para.split(/ +/).flatMap((w) => (text_displayWidth(w) > width ? wrap(w, width) : [w]))) {
            if (word === '')
                continue;
            if (line === '')
                line = word;
            else if (text_displayWidth(line) + 1 + text_displayWidth(word) <= width)
                line += ` ${word}`;
            else {
                out.push(line);
                line = word;
            }
        }
        out.push(line);
    }
    return out;
}
/** `text` wrapped to `width`, the first line indented by `indent` spaces and the rest by `hang` more. */
function indented(text, width, indent, hang = 0) {
    const first = wrapWords(text, Math.max(20, width - indent));
    if (hang === 0 || first.length <= 1)
        return first.map((l) => (l === '' ? '' : ' '.repeat(indent) + l));
    const head = first[0];
    const rest = wrapWords(text.slice(head.length).trimStart(), Math.max(20, width - indent - hang));
    return [' '.repeat(indent) + head, ...rest.map((l) => ' '.repeat(indent + hang) + l)];
}
/**
 * A two-column list (`label  text`): labels in a column of at most `maxLabel`
 * columns, texts wrapped beside them; a longer label puts its text on the next line.
 */
function table(rows, width, indent = 2, maxLabel = 30) {
    const col = Math.min(maxLabel, rows.reduce((m, [l]) => Math.max(m, text_displayWidth(l)), 0));
    const textCol = indent + col + 2;
    const textWidth = Math.max(20, width - textCol);
    const out = [];
    for (const [label, text] of rows) {
        const lines = wrapWords(text, textWidth);
        const head = ' '.repeat(indent) + label;
        if (text_displayWidth(label) > col) {
            out.push(head);
            for (const l of lines)
                out.push(' '.repeat(textCol) + l);
        }
        else {
            out.push(head + ' '.repeat(textCol - text_displayWidth(head)) + (lines[0] ?? ''));
            for (const l of lines.slice(1))
                out.push(' '.repeat(textCol) + l);
        }
    }
    return out;
}
const GLOBAL_OPTIONS = [
    ['-h, --help', 'Show help: `stepchain help`, `stepchain <command> --help`, `stepchain help <command>`.'],
    ['--version', 'Print the version.'],
];
/** The words that name a group: the first word of a command of two or more words (`receipt`, `run`, `audit`). */
function groupNames(commands) {
    return new Set(commands.filter((c) => c.name.length > 1).map((c) => c.name[0]));
}
/** `stepchain help`: every command with its summary, the global options and exit codes. */
function mainHelp(commands, width) {
    const out = [
        `stepchain ${VERSION}: tamper-evident, replayable AI-agent runs`,
        '',
        'Usage: stepchain <command> [options]',
        '',
    ];
    out.push('Commands:');
    out.push(...table(commands.map((c) => [c.name.join(' '), c.summary]), width, 2, 18));
    out.push('', 'Options:');
    out.push(...table(GLOBAL_OPTIONS, width, 2, 18));
    out.push('', 'Exit codes:');
    out.push(...table(Object.entries(COMMON_EXIT_CODES), width, 2, 18));
    out.push('');
    out.push(...wrapWords('Run `stepchain <command> --help` for its options, examples and exit codes. ' +
        'Every command that prints something prints one JSON document with --json, errors included ({"ok": false, "error": {...}}). ' +
        'The project root is found like git finds a repository (see --root).', width));
    return out.join('\n');
}
/** `stepchain receipt`: the commands of one group. */
function groupHelp(group, commands, width) {
    const members = commands.filter((c) => c.name[0] === group && c.name.length > 1);
    const out = [`usage: stepchain ${group} <command> [options]`, '', 'Commands:'];
    out.push(...table(members.map((c) => [c.name.join(' '), c.summary]), width, 2, 22));
    out.push('', ...wrapWords(`Run \`stepchain ${group} <command> --help\` for one command's options.`, width));
    return out.join('\n');
}
function optionRows(options) {
    const rows = Object.entries(options).map(([name, s]) => {
        const label = optionLabel(name, s) + (s.kind === 'flag' ? '' : ` ${s.value ?? 'VALUE'}`);
        const repeat = s.kind === 'list' ? ' Repeatable.' : '';
        return [label, `${s.description ?? ''}${repeat}`.trim()];
    });
    rows.push(['-h, --help', 'Show this help.']);
    return rows;
}
/** `stepchain <command> --help`: usage, what it does, every option, examples, exit codes. */
function commandHelp(command, width, subcommands = []) {
    const name = `stepchain ${command.name.join(' ')}`;
    const out = indented(`usage: ${name} ${command.usage}`.trimEnd(), width, 0, 4);
    out.push('', ...wrapWords(command.summary, width));
    if (command.description)
        out.push('', ...wrapWords(command.description, width));
    out.push('', 'Options:', ...table(optionRows(command.options), width, 2, 28));
    if (subcommands.length > 0) {
        out.push('', 'Commands:', ...table(subcommands.map((c) => [c.name.join(' '), c.summary]), width, 2, 22));
    }
    if (command.examples && command.examples.length > 0) {
        out.push('', 'Examples:');
        for (const e of command.examples) {
            out.push(...indented(`# ${e.what}`, width, 2));
            out.push(...indented(e.run, width, 2, 4));
        }
    }
    out.push('', 'Exit codes:', ...table(Object.entries(command.exitCodes ?? COMMON_EXIT_CODES), width, 2, 4));
    return out.join('\n');
}

;// CONCATENATED MODULE: ./src/cli/main.ts







/** Help is wrapped at the terminal's width; 80 columns when it is not a terminal (`COLUMNS` overrides). */
function widthOf(io) {
    const env = Number(io.env.COLUMNS);
    const w = io.columns ?? (Number.isInteger(env) && env > 0 ? env : 80);
    return Math.max(30, w);
}
/** Picks the command whose name words are the longest prefix of argv. */
function findCommand(argv) {
    let best;
    for (const c of commands) {
        if (c.name.every((w, i) => argv[i] === w) && (best === undefined || c.name.length > best.name.length))
            best = c;
    }
    return best && { command: best, rest: argv.slice(best.name.length) };
}
/** The commands of a group, for a command that is also a group (`fork` and `fork rm`). */
function subcommandsOf(command) {
    return commands.filter((c) => c.name.length === command.name.length + 1 && command.name.every((w, i) => c.name[i] === w));
}
/** An unknown command (or group member): one line with the closest names. */
function unknownCommand(words) {
    const groups = groupNames(commands);
    if (words.length >= 2 && groups.has(words[0])) {
        const group = words[0];
        const wrong = `${group} ${words[1]}`;
        const known = commands.filter((c) => c.name[0] === group && c.name.length > 1).map((c) => c.name.join(' '));
        return new errors_InputError(`unknown command ${JSON.stringify(wrong)}${didYouMean(wrong, known)} (see \`stepchain ${group} --help\`)`);
    }
    const word = words[0] ?? '';
    const known = [...new Set(commands.map((c) => c.name[0])), 'help', 'version'];
    return new errors_InputError(`unknown command ${JSON.stringify(word)}${didYouMean(word, known)} (see \`stepchain help\`)`);
}
/** `stepchain help [words...]`: the text, or an error for unknown words. */
function helpFor(words, width) {
    if (words.length === 0)
        return mainHelp(commands, width);
    const exact = commands.find((c) => c.name.length === words.length && c.name.every((w, i) => words[i] === w));
    if (exact)
        return commandHelp(exact, width, subcommandsOf(exact));
    if (words.length === 1 && groupNames(commands).has(words[0]))
        return groupHelp(words[0], commands, width);
    throw unknownCommand(words);
}
/** Prints an error: one line on stderr, and with `--json` also the error document on stdout. */
function report(e, io, json) {
    const doc = errorDocument(e);
    if (json)
        io.json(doc);
    if (e instanceof errors_StepchainError) {
        io.err(`stepchain: ${e.message}`);
        return e.exitCode;
    }
    // An unexpected failure is still one line; STEPCHAIN_DEBUG shows the stack.
    io.err(`stepchain: internal error: ${doc.error.message}`);
    if (io.env.STEPCHAIN_DEBUG)
        io.err(String(e?.stack));
    return 1;
}
/** Runs one command line; returns the exit code. Never throws, never prints a stack trace. */
async function runCli(argv, io = processIO()) {
    const width = widthOf(io);
    const head = argv[0];
    // `--json` anywhere before `--` asks for a JSON error too, even when the command line itself is wrong.
    const rawJson = argv.slice(0, argv.includes('--') ? argv.indexOf('--') : argv.length).includes('--json');
    if (head === undefined) {
        io.out(mainHelp(commands, width));
        return 2;
    }
    if (head === '--version' || head === 'version' || head === '-V') {
        io.out(VERSION);
        return 0;
    }
    if (head === 'help' || head === '--help' || head === '-h') {
        try {
            io.out(helpFor(argv.slice(1), width));
            return 0;
        }
        catch (e) {
            return report(e, io, rawJson);
        }
    }
    const found = findCommand(argv);
    if (found === undefined) {
        const groups = groupNames(commands);
        if (groups.has(head)) {
            const next = argv[1];
            if (next === undefined || next === '--help' || next === '-h') {
                io.out(groupHelp(head, commands, width));
                return next === undefined ? 2 : 0;
            }
        }
        return report(unknownCommand(argv.slice(0, 2)), io, rawJson);
    }
    const { command, rest } = found;
    if (wantsHelp(rest, command.options)) {
        io.out(commandHelp(command, width, subcommandsOf(command)));
        return 0;
    }
    const json = wantsJson(rest, command.options);
    try {
        const args = parseArgs(rest, command.options, command.name.join(' '));
        return await command.run(args, io);
    }
    catch (e) {
        return report(e, io, json || rawJson);
    }
}

;// CONCATENATED MODULE: ./src/cli/index.ts




// The single-file bundle's entry (dist/cli.js). The same file runs journal
// verification slices when started as a worker thread.
if (!external_node_worker_threads_namespaceObject.isMainThread && isChunkJob(external_node_worker_threads_namespaceObject.workerData)) {
    runChunkJob(external_node_worker_threads_namespaceObject.workerData);
}
else {
    setChunkWorkerEntry(__filename);
    exitQuietlyOnClosedPipe();
    void runCli(process.argv.slice(2)).then((code) => {
        process.exitCode = code;
    });
}

})();

module.exports = __webpack_exports__;
/******/ })()
;