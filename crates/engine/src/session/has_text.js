(function(needle) { return !!document.body && document.body.innerText.includes(needle); })
