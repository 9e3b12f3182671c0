(function() { this.scrollIntoView({block: 'center', inline: 'center'}); })
