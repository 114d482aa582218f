// The prompts rfs shows, each from its own @inquirer package: importing @inquirer/prompts would
// bring every prompt, the editor one with iconv-lite and chardet among them (a third of the
// bundle), for three that are used. Imported on demand, only where a person can answer.
export { default as confirm } from '@inquirer/confirm';
export { default as input } from '@inquirer/input';
export { default as password } from '@inquirer/password';
export { default as select } from '@inquirer/select';
