var __webpack_exports__ = {};
process.stdout.write('ralph-action\n');


