module.exports = require('./dist/tracing');
