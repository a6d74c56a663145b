/******/ (() => { // webpackBootstrap
/******/ 	var __webpack_modules__ = ({
/***/ "./src/api.js":
/***/ ((module) => {
module.exports = function ping() {
  return fetch("https://status.example.com/ping");
};
/***/ })
/******/ 	});
/******/ 	var __webpack_module_cache__ = {};
/******/ 	function __webpack_require__(moduleId) {
/******/ 		var cachedModule = __webpack_module_cache__[moduleId];
/******/ 		if (cachedModule !== undefined) {
/******/ 			return cachedModule.exports;
/******/ 		}
/******/ 		var module = __webpack_module_cache__[moduleId] = { exports: {} };
/******/ 		__webpack_modules__[moduleId](module, module.exports, __webpack_require__);
/******/ 		return module.exports;
/******/ 	}
/******/ 	__webpack_require__("./src/api.js")();
/******/ })();
