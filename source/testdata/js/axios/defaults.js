const axios = require('axios');

// Set once for the whole project.
axios.defaults.timeout = 8000;

module.exports = { axios };
