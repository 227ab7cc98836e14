import { folderSuite } from '../support/folder-suite';

folderSuite(__dirname);
